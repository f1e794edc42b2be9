// Owns the connection to kina-lsp: starts it over stdio (the client appends
// `--stdio`), forwards the `kina.*` settings, restarts it with exponential
// backoff when it crashes (open documents are re-sent by the client on each
// start), and explains a missing server instead of failing silently.
import * as vscode from 'vscode';
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  InitializeResult,
  LanguageClient,
  LanguageClientOptions,
  Message,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { findServer, missingServerMessage } from './serverPath';

/** Restart delays: 0.5 s doubling up to 30 s; after 5 crashes inside 3 minutes, stop and ask. */
export class BackoffErrorHandler implements ErrorHandler {
  private crashes: number[] = [];
  static readonly WINDOW_MS = 3 * 60 * 1000;
  static readonly MAX_CRASHES = 5;

  constructor(private readonly output: vscode.OutputChannel) {}

  error(_error: Error, _message: Message | undefined, count: number | undefined): ErrorHandlerResult {
    // Transport errors: keep going while they are rare; the close handler deals with a dead server.
    return { action: count !== undefined && count <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown };
  }

  async closed(): Promise<CloseHandlerResult> {
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < BackoffErrorHandler.WINDOW_MS);
    this.crashes.push(now);
    const n = this.crashes.length;
    if (n > BackoffErrorHandler.MAX_CRASHES) {
      this.crashes = [];
      void vscode.window
        .showErrorMessage(
          `Kina: kina-lsp crashed ${BackoffErrorHandler.MAX_CRASHES + 1} times in 3 minutes and was not restarted.`,
          'Restart Server',
          'Show Log',
        )
        .then((choice) => {
          if (choice === 'Restart Server') {
            void vscode.commands.executeCommand('kina.restartServer');
          } else if (choice === 'Show Log') {
            this.output.show();
          }
        });
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    const delay = Math.min(30_000, 500 * 2 ** (n - 1));
    this.output.appendLine(`kina-lsp exited unexpectedly; restarting in ${delay} ms (crash ${n} in the last 3 minutes).`);
    await new Promise((resolve) => setTimeout(resolve, delay));
    return { action: CloseAction.Restart, handled: true };
  }
}

function initializationOptions(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration('kina');
  const options: Record<string, unknown> = { target: config.get<string>('target', 'sm_90a') };
  const debounce = config.get<number | null>('debounceMs', null);
  if (typeof debounce === 'number') {
    options.debounceMs = debounce;
  }
  return options;
}

export class KinaClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private warnedMissing = false;
  readonly output = vscode.window.createOutputChannel('Kina Language Server');

  /** The running client, or undefined after explaining why there is none. */
  async ensureStarted(): Promise<LanguageClient | undefined> {
    if (this.client) {
      if (this.client.state === State.Stopped) {
        await this.client.start();
      }
      return this.client;
    }
    const lookup = findServer();
    if (!lookup.path) {
      const message = missingServerMessage(lookup);
      this.output.appendLine(message);
      if (!this.warnedMissing) {
        this.warnedMissing = true;
        void vscode.window.showErrorMessage(message, 'Open Settings', 'Show Log').then((choice) => {
          if (choice === 'Open Settings') {
            void vscode.commands.executeCommand('workbench.action.openSettings', 'kina.serverPath');
          } else if (choice === 'Show Log') {
            this.output.show();
          }
        });
      }
      return undefined;
    }
    const serverOptions: ServerOptions = {
      command: lookup.path,
      transport: TransportKind.stdio,
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ language: 'kina' }],
      synchronize: { configurationSection: 'kina' },
      initializationOptions: initializationOptions(),
      outputChannel: this.output,
      traceOutputChannel: this.output,
      errorHandler: new BackoffErrorHandler(this.output),
    };
    this.client = new LanguageClient('kina', 'Kina Language Server', serverOptions, clientOptions);
    this.output.appendLine(`Starting ${lookup.path} --stdio`);
    try {
      await this.client.start();
    } catch (e) {
      const message = `Kina: kina-lsp (${lookup.path}) failed to start: ${e instanceof Error ? e.message : String(e)}`;
      this.output.appendLine(message);
      void vscode.window.showErrorMessage(message);
    }
    return this.client;
  }

  /** The server's initialize result, once it has answered. */
  initializeResult(): InitializeResult | undefined {
    return this.client?.initializeResult;
  }

  /** The client when it is running, after starting it if needed; explains failures to the user. */
  async running(): Promise<LanguageClient | undefined> {
    const client = await this.ensureStarted();
    return client && client.state === State.Running ? client : undefined;
  }

  async restart(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    this.warnedMissing = false;
    if (old) {
      try {
        await old.stop(5000);
      } catch {
        // A dead server cannot be stopped politely; the new one replaces it.
      }
    }
    await this.ensureStarted();
  }

  async dispose(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    if (old) {
      await old.stop(2000).catch(() => undefined);
    }
    this.output.dispose();
  }
}
