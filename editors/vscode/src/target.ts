// The target GPU: a status bar item (shown for .kina editors) and the
// Kina: Select Target GPU quick pick, both backed by the `kina.target`
// setting, which the client forwards to kina-lsp. The list of targets comes
// from the server when it advertises one (initialize result
// `capabilities.experimental.kinaTargets`, an array of names or {name,
// description}); the fallback below only names targets for the picker.
import * as vscode from 'vscode';
import { KinaClient } from './client';

interface TargetChoice {
  name: string;
  description?: string;
}

const FALLBACK_TARGETS: TargetChoice[] = [
  { name: 'sm_70', description: 'Volta (V100)' },
  { name: 'sm_75', description: 'Turing (T4)' },
  { name: 'sm_80', description: 'Ampere (A100)' },
  { name: 'sm_86', description: 'Ampere (RTX 30xx, A10)' },
  { name: 'sm_89', description: 'Ada (L4, L40, RTX 40xx)' },
  { name: 'sm_90', description: 'Hopper (H100/H200) without wgmma' },
  { name: 'sm_90a', description: 'Hopper (H100/H200) with wgmma, TMA' },
  { name: 'sm_100a', description: 'Blackwell (B200)' },
  { name: 'sm_120', description: 'Blackwell (RTX 50xx)' },
];

function serverTargets(server: KinaClient): TargetChoice[] | undefined {
  const experimental = server.initializeResult()?.capabilities.experimental as
    | { kinaTargets?: unknown }
    | undefined;
  const list = experimental?.kinaTargets;
  if (!Array.isArray(list) || list.length === 0) {
    return undefined;
  }
  const out: TargetChoice[] = [];
  for (const t of list) {
    if (typeof t === 'string') {
      out.push({ name: t });
    } else if (t && typeof (t as TargetChoice).name === 'string') {
      out.push({ name: (t as TargetChoice).name, description: (t as TargetChoice).description });
    }
  }
  return out.length > 0 ? out : undefined;
}

export function currentTarget(): string {
  return vscode.workspace.getConfiguration('kina').get<string>('target', 'sm_90a');
}

export class TargetStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('kina.target', vscode.StatusBarAlignment.Right, 100);
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.item.name = 'Kina Target GPU';
    this.item.command = 'kina.selectTarget';
    this.item.tooltip = 'Kina target GPU: click to change';
    this.update();
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('kina.target') && this.update()),
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
    );
  }

  update(): void {
    this.item.text = `$(circuit-board) ${currentTarget()}`;
    if (vscode.window.activeTextEditor?.document.languageId === 'kina') {
      this.item.show();
    } else {
      this.item.hide();
    }
  }

  dispose(): void {
    this.item.dispose();
    this.disposables.forEach((d) => d.dispose());
  }
}

export async function selectTarget(server: KinaClient): Promise<void> {
  const current = currentTarget();
  const targets = serverTargets(server) ?? FALLBACK_TARGETS;
  const picked = await vscode.window.showQuickPick(
    targets.map((t) => ({
      label: t.name,
      description: t.description,
      detail: t.name === current ? 'current target' : undefined,
      picked: t.name === current,
    })),
    { title: 'Kina: Select Target GPU', placeHolder: `Current: ${current}` },
  );
  if (!picked || picked.label === current) {
    return;
  }
  const scope = vscode.workspace.workspaceFolders?.length
    ? vscode.ConfigurationTarget.Workspace
    : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration('kina').update('target', picked.label, scope);
}
