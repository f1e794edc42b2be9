// Kina: Run Kernel. Asks for the kernel's dimensions (remembered per kernel),
// sends kina/run with a work-done token, mirrors the server's $/progress in a
// cancellable notification, and writes the output to the 'Kina Run' channel.
// Refused in untrusted workspaces: running compiles and launches code.
import * as vscode from 'vscode';
import { WorkDoneProgress, WorkDoneProgressBegin, WorkDoneProgressReport } from 'vscode-languageclient/node';
import { KinaClient } from './client';
import { kernelDims } from './kernelAtCursor';
import { RunParams, runRequest } from './protocol';

let runCounter = 0;

/** Parses `M=1024, N=512` into {M: 1024, N: 512}; undefined when malformed. */
export function parseDims(text: string): Record<string, number> | undefined {
  const dims: Record<string, number> = {};
  for (const part of text.split(/[,\s]+/).filter(Boolean)) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(\d+)$/.exec(part);
    if (!m) {
      return undefined;
    }
    dims[m[1]] = Number(m[2]);
  }
  return dims;
}

export async function runKernel(
  server: KinaClient,
  runOutput: vscode.OutputChannel,
  state: vscode.Memento,
  document: vscode.TextDocument,
  kernel: string,
): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage('Kina: running kernels is disabled in untrusted workspaces.');
    return;
  }
  const client = await server.running();
  if (!client) {
    return;
  }
  if (document.isDirty) {
    await document.save();
  }
  let dims: Record<string, number> | undefined;
  const names = kernelDims(document.getText(), kernel);
  if (names.length > 0) {
    const key = `kina.dims.${kernel}`;
    const previous = state.get<string>(key) ?? names.map((n) => `${n}=1024`).join(', ');
    const answer = await vscode.window.showInputBox({
      title: `Run ${kernel}`,
      prompt: `Dimensions of ${kernel} [${names.join(', ')}]`,
      value: previous,
      validateInput: (v) => (parseDims(v) ? undefined : 'Write NAME=VALUE pairs, for example M=1024, N=1024'),
    });
    if (answer === undefined) {
      return;
    }
    dims = parseDims(answer);
    await state.update(key, answer);
  }
  const target = vscode.workspace.getConfiguration('kina').get<string>('target', 'sm_90a');
  const token = `kina-run-${process.pid}-${++runCounter}`;
  const params: RunParams = { textDocument: { uri: document.uri.toString() }, kernel, target, workDoneToken: token };
  if (dims) {
    params.dims = dims;
  }
  runOutput.show(true);
  runOutput.appendLine(`$ kina run ${vscode.workspace.asRelativePath(document.uri)} --kernel ${kernel} --target ${target}` +
    (dims ? ` --dims ${Object.entries(dims).map(([k, v]) => `${k}=${v}`).join(',')}` : ''));
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Kina: running ${kernel}`, cancellable: true },
    async (progress, cancel) => {
      const sub = client.onProgress(WorkDoneProgress.type, token, (value) => {
        if (value.kind === 'begin' || value.kind === 'report') {
          const v = value as WorkDoneProgressBegin | WorkDoneProgressReport;
          if (v.message) {
            runOutput.appendLine(`  ${v.message}`);
          }
          progress.report({ message: v.message });
        }
      });
      try {
        const result = await client.sendRequest(runRequest, params, cancel);
        runOutput.append(result.output.endsWith('\n') || result.output === '' ? result.output : result.output + '\n');
        if (typeof result.exitCode === 'number') {
          runOutput.appendLine(`[exit code ${result.exitCode}]`);
        }
        if (typeof result.exitCode === 'number' && result.exitCode !== 0) {
          void vscode.window.showWarningMessage(`Kina: ${kernel} exited with code ${result.exitCode}; see 'Kina Run'.`);
        }
      } catch (e) {
        const message = cancel.isCancellationRequested ? 'cancelled' : e instanceof Error ? e.message : String(e);
        runOutput.appendLine(`[kina/run failed: ${message}]`);
        if (!cancel.isCancellationRequested) {
          void vscode.window.showErrorMessage(`Kina: run of ${kernel} failed: ${message}`);
        }
      } finally {
        sub.dispose();
      }
    },
  );
}
