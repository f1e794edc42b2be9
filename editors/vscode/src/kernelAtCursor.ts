// Which kernel a command applies to: the code lens passes it explicitly; from
// the palette or the Run button it is the kernel whose definition encloses (or
// last precedes) the cursor, or a quick pick when the cursor is before all of
// them. Purely textual, so it works before the server has answered anything.
import * as vscode from 'vscode';
import { KernelCommandArgs } from './protocol';

const KERNEL_RE = /^\s*kernel\s+([A-Za-z_][A-Za-z0-9_]*)/gm;

export interface KernelDefinition {
  name: string;
  offset: number;
}

export function kernelsIn(text: string): KernelDefinition[] {
  const out: KernelDefinition[] = [];
  for (const m of text.matchAll(KERNEL_RE)) {
    out.push({ name: m[1], offset: m.index ?? 0 });
  }
  return out;
}

export interface KernelTarget {
  document: vscode.TextDocument;
  kernel: string;
}

/** Resolves the document and kernel for a command; undefined when the user cancelled or none exists. */
export async function resolveKernel(args?: KernelCommandArgs): Promise<KernelTarget | undefined> {
  if (args && typeof args.uri === 'string' && typeof args.kernel === 'string') {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(args.uri));
    return { document, kernel: args.kernel };
  }
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'kina') {
    void vscode.window.showWarningMessage('Kina: open a .kina file first.');
    return undefined;
  }
  const document = editor.document;
  const kernels = kernelsIn(document.getText());
  if (kernels.length === 0) {
    void vscode.window.showWarningMessage(`Kina: no kernel in ${vscode.workspace.asRelativePath(document.uri)}.`);
    return undefined;
  }
  const cursor = document.offsetAt(editor.selection.active);
  const preceding = kernels.filter((k) => k.offset <= cursor);
  if (preceding.length > 0) {
    return { document, kernel: preceding[preceding.length - 1].name };
  }
  if (kernels.length === 1) {
    return { document, kernel: kernels[0].name };
  }
  const picked = await vscode.window.showQuickPick(
    kernels.map((k) => k.name),
    { placeHolder: 'Kernel' },
  );
  return picked ? { document, kernel: picked } : undefined;
}

/** The dimension parameters `[M, N, K]` of a kernel, read from its header. */
export function kernelDims(text: string, kernel: string): string[] {
  const re = new RegExp(`^\\s*kernel\\s+${kernel}\\s*\\[([^\\]]*)\\]`, 'm');
  const m = re.exec(text);
  if (!m) {
    return [];
  }
  return m[1]
    .split(',')
    .map((d) => d.trim())
    .filter((d) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(d));
}
