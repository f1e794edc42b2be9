// Entry point of the Kina extension (activated on the first .kina document):
// starts kina-lsp, registers the commands (Run Kernel, Show PTX/SASS/Tile IR,
// Show Register Report, Select Target GPU, Restart Server), the artifact
// documents, the target status bar item and the `kina` task type. The
// extension stays thin: every language feature comes from the server.
import * as vscode from 'vscode';

import {ArtifactDocuments, ArtifactKind, ARTIFACTS} from './artifactDocuments';
import {KinaClient} from './client';
import {resolveKernel} from './kernelAtCursor';
import {LineSync} from './lineSync';
import {KernelCommandArgs} from './protocol';
import {runKernel} from './runKernel';
import {selectTarget, TargetStatus} from './target';
import {registerTasks} from './tasks';
import {tuneKernel} from './tuneKernel';

let server: KinaClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  server = new KinaClient();
  const kina = server;
  const artifacts = new ArtifactDocuments(kina);
  const runOutput = vscode.window.createOutputChannel('Kina Run');
  context.subscriptions.push(kina, artifacts, runOutput, new TargetStatus(), registerTasks());
  context.subscriptions.push(new LineSync(kina)); // synchronised PTX/SASS views

  const showArtifact = (kind: ArtifactKind) => async (args?: KernelCommandArgs) => {
    const target = await resolveKernel(args);
    if (target) {
      await artifacts.show(kind, target.document.uri, target.kernel);
    }
  };

  const run = async (args?: KernelCommandArgs) => {
    const target = await resolveKernel(args);
    if (target) {
      await runKernel(kina, runOutput, context.workspaceState, target.document, target.kernel);
    }
  };
  context.subscriptions.push(
      vscode.commands.registerCommand('kina.runKernel', run),
      // The code lenses' command names, as docs/lsp-extensions.md gives them.
      vscode.commands.registerCommand('kina.run', run),
      vscode.commands.registerCommand('kina.registerReport', showArtifact(ARTIFACTS.report)),
      vscode.commands.registerCommand('kina.showPtx', showArtifact(ARTIFACTS.ptx)),
      vscode.commands.registerCommand('kina.showSass', showArtifact(ARTIFACTS.sass)),
      vscode.commands.registerCommand('kina.showTileIR', showArtifact(ARTIFACTS.tileIR)),
      vscode.commands.registerCommand('kina.showRegisterReport', showArtifact(ARTIFACTS.report)),
      vscode.commands.registerCommand('kina.selectTarget', () => selectTarget(kina)),
      vscode.commands.registerCommand('kina.restartServer', () => kina.restart()),
      vscode.commands.registerCommand('kina.tune',
                                      async (args?: KernelCommandArgs) => {
                                        const target = await resolveKernel(args);
                                        if (target) {
                                          await tuneKernel(target.document, target.kernel);
                                        }
                                      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('kina.serverPath')) {
          void kina.restart();
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void kina.restart()),
  );

  await kina.ensureStarted();
}

export async function deactivate(): Promise<void> {
  await server?.dispose();
  server = undefined;
}
