// Read-only virtual documents for a kernel's PTX, SASS, tile IR and register
// report (schemes kina-ptx:, kina-sass:, kina-tileir:, kina-report:). Their
// text comes from the kina/* custom requests; they open beside the source,
// are highlighted by their file extension, and refresh when the source is
// saved or the target changes.
import * as path from 'path';
import * as vscode from 'vscode';
import { RequestType } from 'vscode-languageclient/node';
import { KinaClient } from './client';
import {
  ArtifactResult,
  KernelArtifactParams,
  artifactText,
  ptxRequest,
  registerReportRequest,
  sassRequest,
  tileIRRequest,
} from './protocol';

export interface ArtifactKind {
  scheme: string;
  extension: string;
  label: string;
  request: RequestType<KernelArtifactParams, ArtifactResult, void>;
}

export const ARTIFACTS = {
  ptx: { scheme: 'kina-ptx', extension: '.ptx', label: 'PTX', request: ptxRequest },
  sass: { scheme: 'kina-sass', extension: '.sass', label: 'SASS', request: sassRequest },
  tileIR: { scheme: 'kina-tileir', extension: '.tileir', label: 'Tile IR', request: tileIRRequest },
  report: { scheme: 'kina-report', extension: '.report.txt', label: 'register report', request: registerReportRequest },
} satisfies Record<string, ArtifactKind>;

interface ArtifactQuery {
  source: string;
  kernel: string;
}

function artifactUri(kind: ArtifactKind, source: vscode.Uri, kernel: string): vscode.Uri {
  const query: ArtifactQuery = { source: source.toString(), kernel };
  const name = `${path.basename(source.path)} - ${kernel}${kind.extension}`;
  return vscode.Uri.from({ scheme: kind.scheme, path: '/' + name, query: JSON.stringify(query) });
}

function parseQuery(uri: vscode.Uri): ArtifactQuery | undefined {
  try {
    const q = JSON.parse(uri.query) as ArtifactQuery;
    return typeof q.source === 'string' && typeof q.kernel === 'string' ? q : undefined;
  } catch {
    return undefined;
  }
}

class ArtifactProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly kind: ArtifactKind, private readonly server: KinaClient) {}

  refresh(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const query = parseQuery(uri);
    if (!query) {
      return `// Malformed ${this.kind.scheme}: URI ${uri.toString()}\n`;
    }
    const client = await this.server.running();
    if (!client) {
      return `// kina-lsp is not running, so there is no ${this.kind.label} for ${query.kernel}. See the 'Kina Language Server' output.\n`;
    }
    const target = vscode.workspace.getConfiguration('kina').get<string>('target', 'sm_90a');
    const params: KernelArtifactParams = { textDocument: { uri: query.source }, kernel: query.kernel, target };
    try {
      const result = await client.sendRequest(this.kind.request, params, token);
      return artifactText(result);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      void vscode.window.showErrorMessage(`Kina: ${this.kind.label} for ${query.kernel} failed: ${message}`);
      return `// ${this.kind.request.method} failed for kernel ${query.kernel} (${target}):\n// ${message.replace(/\n/g, '\n// ')}\n`;
    }
  }
}

/** Registers the providers and the refresh-on-save / refresh-on-target-change hooks. */
export class ArtifactDocuments implements vscode.Disposable {
  private readonly providers = new Map<string, ArtifactProvider>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(server: KinaClient) {
    for (const kind of Object.values(ARTIFACTS)) {
      const provider = new ArtifactProvider(kind, server);
      this.providers.set(kind.scheme, provider);
      this.disposables.push(vscode.workspace.registerTextDocumentContentProvider(kind.scheme, provider));
    }
    this.disposables.push(
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (doc.languageId === 'kina') {
          this.refreshWhere((q) => q.source === doc.uri.toString());
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('kina.target')) {
          this.refreshWhere(() => true);
        }
      }),
    );
  }

  private refreshWhere(match: (q: ArtifactQuery) => boolean): void {
    for (const doc of vscode.workspace.textDocuments) {
      const provider = this.providers.get(doc.uri.scheme);
      const query = provider && parseQuery(doc.uri);
      if (provider && query && match(query)) {
        provider.refresh(doc.uri);
      }
    }
  }

  /** Opens (or refreshes and reveals) the artifact document beside the source. */
  async show(kind: ArtifactKind, source: vscode.Uri, kernel: string): Promise<vscode.TextEditor> {
    const uri = artifactUri(kind, source, kernel);
    this.providers.get(kind.scheme)?.refresh(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(doc, {
      viewColumn: vscode.ViewColumn.Beside,
      preview: false,
      preserveFocus: true,
    });
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
