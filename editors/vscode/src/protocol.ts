// The custom requests kina-lsp serves beyond LSP 3.17, as the extension sends
// them. The server side documents each one (docs/lsp-extensions.md); this file
// is the client's only copy of their names and shapes.
import { RequestType, TextDocumentIdentifier } from 'vscode-languageclient/node';

/** Params of kina/ptx, kina/sass, kina/tileIR and kina/registerReport. */
export interface KernelArtifactParams {
  textDocument: TextDocumentIdentifier;
  kernel: string;
  target?: string;
}

/** The server answers with `{text}` or with a structured object. */
export type ArtifactResult = { text: string } | Record<string, unknown>;

export const ptxRequest = new RequestType<KernelArtifactParams, ArtifactResult, void>('kina/ptx');
export const sassRequest = new RequestType<KernelArtifactParams, ArtifactResult, void>('kina/sass');
export const tileIRRequest = new RequestType<KernelArtifactParams, ArtifactResult, void>('kina/tileIR');
export const registerReportRequest = new RequestType<KernelArtifactParams, ArtifactResult, void>(
  'kina/registerReport',
);

/** Params of kina/run; the server reports `$/progress` on `workDoneToken`. */
export interface RunParams {
  textDocument: TextDocumentIdentifier;
  kernel: string;
  dims?: Record<string, number>;
  target?: string;
  workDoneToken?: string;
}

/** A failed run is answered with an error (RequestFailed); exitCode is optional. */
export interface RunResult {
  kernel?: string;
  output: string;
  exitCode?: number;
}

export const runRequest = new RequestType<RunParams, RunResult, void>('kina/run');

/** Arguments of the code lens commands (kina.run, kina.showPtx, kina.registerReport) and of kina.runKernel, kina.showRegisterReport. */
export interface KernelCommandArgs {
  uri: string;
  kernel: string;
}

/** Renders an artifact result as text: `text` verbatim, anything else as indented JSON. */
export function artifactText(result: ArtifactResult | null | undefined): string {
  if (result && typeof (result as { text?: unknown }).text === 'string') {
    return (result as { text: string }).text;
  }
  return JSON.stringify(result ?? null, null, 2) + '\n';
}

/** kina/linesAt (issue 17): the statement under the cursor in the cached PTX/SASS. */
export interface LinesAtResult {
  kernel: string | null;
  target: string;
  first: number | null; // 0-based Kina lines of the statement
  last: number | null;
  ptxCached: boolean;
  sassCached: boolean;
  ptx: number[]; // 0-based lines of the kina/ptx text
  sass: number[];
  ptxFocus: number | null; // where the view scrolls: the start of the longest run
  sassFocus: number | null;
}
export const linesAtRequest = new RequestType<
  { textDocument: { uri: string }; position: { line: number; character: number } },
  LinesAtResult,
  void
>('kina/linesAt');

/** kina/sourceOf (issue 17): the Kina line of a PTX/SASS listing line. */
export const sourceOfRequest = new RequestType<
  { textDocument: { uri: string }; kernel: string; kind: 'ptx' | 'sass'; line: number },
  { line: number | null },
  void
>('kina/sourceOf');
