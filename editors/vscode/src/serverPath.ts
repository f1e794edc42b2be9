// Finds the kina-lsp executable: the `kina.serverPath` setting, then
// `kina-lsp` on PATH, then `build/lsp-server/kina-lsp` in a workspace folder.
// When none exists the caller explains it to the user (missingServerMessage).
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

export const SERVER_NAME = 'kina-lsp';

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) {
      return path.join(dir, name);
    }
  }
  return undefined;
}

export interface ServerLookup {
  /** The executable to start, when one was found. */
  path?: string;
  /** Every place that was tried, in order, for the error message. */
  tried: string[];
}

export function findServer(): ServerLookup {
  const tried: string[] = [];
  const configured = vscode.workspace.getConfiguration('kina').get<string>('serverPath', '').trim();
  if (configured) {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const expanded = configured.replace(/^~(?=$|\/)/, process.env.HOME ?? '~');
    const resolved = path.isAbsolute(expanded) || !folder ? expanded : path.join(folder, expanded);
    tried.push(`kina.serverPath = ${resolved}`);
    // An explicit setting is never silently replaced by another binary.
    return isExecutable(resolved) ? { path: resolved, tried } : { tried };
  }
  tried.push(`${SERVER_NAME} on PATH`);
  const fromPath = onPath(SERVER_NAME);
  if (fromPath) {
    return { path: fromPath, tried };
  }
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const candidate = path.join(folder.uri.fsPath, 'build', 'lsp-server', SERVER_NAME);
    tried.push(candidate);
    if (isExecutable(candidate)) {
      return { path: candidate, tried };
    }
  }
  return { tried };
}

export function missingServerMessage(lookup: ServerLookup): string {
  return (
    `Kina: the language server \`${SERVER_NAME}\` was not found (tried: ${lookup.tried.join('; ')}). ` +
    'Highlighting works without it; diagnostics, hover, PTX and Run need it. ' +
    'Build it with `ninja -C build kina-lsp` or set `kina.serverPath`.'
  );
}
