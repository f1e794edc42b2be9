// Synchronised PTX/SASS views (issue 17, part 3). When the cursor moves in a
// .kina editor, the visible kina-ptx:/kina-sass: documents of that source
// highlight the instructions of the statement under the cursor (the server's
// kina/linesAt, answered from its artifact cache: a cursor move never
// compiles). In a PTX/SASS view, `Kina: Go to Source Line` (kina.goToSource)
// jumps from the instruction under the cursor to its Kina line
// (kina/sourceOf).
import * as vscode from 'vscode';
import { KinaClient } from './client';
import { LinesAtResult, linesAtRequest, sourceOfRequest } from './protocol';

const VIEWS: Record<string, 'ptx' | 'sass'> = { 'kina-ptx': 'ptx', 'kina-sass': 'sass' };

function viewQuery(uri: vscode.Uri): { source: string; kernel: string } | undefined {
  try {
    const q = JSON.parse(uri.query);
    return typeof q.source === 'string' && typeof q.kernel === 'string' ? q : undefined;
  } catch {
    return undefined;
  }
}

export class LineSync implements vscode.Disposable {
  private readonly decoration = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
    isWholeLine: true,
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.rangeHighlightForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Full,
  });
  private readonly sourceDecoration = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
    isWholeLine: true,
  });
  private readonly disposables: vscode.Disposable[] = [];
  private pending = 0;

  constructor(private readonly server: KinaClient) {
    this.disposables.push(
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor.document.languageId === 'kina') {
          void this.sync(e.textEditor);
        }
      }),
      vscode.window.onDidChangeVisibleTextEditors(() => {
        const active = vscode.window.activeTextEditor;
        if (active?.document.languageId === 'kina') {
          void this.sync(active);
        }
      }),
      vscode.commands.registerCommand('kina.goToSource', () => this.goToSource()),
    );
  }

  /** Highlights, in every visible view of this source, the statement's instructions. */
  async sync(editor: vscode.TextEditor): Promise<LinesAtResult | undefined> {
    const source = editor.document.uri.toString();
    const views = vscode.window.visibleTextEditors.filter(
      (v) => VIEWS[v.document.uri.scheme] && viewQuery(v.document.uri)?.source === source,
    );
    if (views.length === 0) {
      return undefined;
    }
    const client = await this.server.running();
    if (!client) {
      return undefined;
    }
    const ticket = ++this.pending;
    const pos = editor.selection.active;
    let r: LinesAtResult;
    try {
      r = await client.sendRequest(linesAtRequest, {
        textDocument: { uri: source },
        position: { line: pos.line, character: pos.character },
      });
    } catch {
      return undefined;
    }
    if (ticket !== this.pending) {
      return undefined; // a later cursor move won
    }
    for (const v of views) {
      const kind = VIEWS[v.document.uri.scheme];
      const mine = viewQuery(v.document.uri)?.kernel === r.kernel;
      const lines = mine ? (kind === 'ptx' ? r.ptx : r.sass) : [];
      v.setDecorations(
        this.decoration,
        lines.filter((l) => l < v.document.lineCount).map((l) => new vscode.Range(l, 0, l, 0)),
      );
      const focus = mine ? (kind === 'ptx' ? r.ptxFocus : r.sassFocus) : null;
      if (focus !== null && focus < v.document.lineCount) {
        v.revealRange(new vscode.Range(focus, 0, focus, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
    }
    return r;
  }

  /** From the instruction under the cursor in a PTX/SASS view to its Kina line. */
  async goToSource(): Promise<void> {
    const view = vscode.window.activeTextEditor;
    const kind = view && VIEWS[view.document.uri.scheme];
    const q = view && viewQuery(view.document.uri);
    if (!view || !kind || !q) {
      void vscode.window.showInformationMessage('Kina: Go to Source Line works in a PTX or SASS view.');
      return;
    }
    const client = await this.server.running();
    if (!client) {
      return;
    }
    const r = await client.sendRequest(sourceOfRequest, {
      textDocument: { uri: q.source },
      kernel: q.kernel,
      kind,
      line: view.selection.active.line,
    });
    if (r.line === null) {
      void vscode.window.showInformationMessage('Kina: this instruction has no Kina line (compiler-made code).');
      return;
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(q.source));
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One });
    const at = new vscode.Position(r.line, 0);
    editor.selection = new vscode.Selection(at, at);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
    editor.setDecorations(this.sourceDecoration, [new vscode.Range(at, at)]);
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
    this.decoration.dispose();
    this.sourceDecoration.dispose();
  }
}
