// A `kina` task type: `kina check|build|run FILE --target T`, wired to the
// `$kina` problem matcher so `file:line:col: error[K0001]: message` lines land
// in the Problems view.
import * as vscode from 'vscode';
import { currentTarget } from './target';

interface KinaTaskDefinition extends vscode.TaskDefinition {
  command: 'check' | 'build' | 'run';
  file?: string;
  target?: string;
}

function makeTask(def: KinaTaskDefinition, scope: vscode.WorkspaceFolder | vscode.TaskScope): vscode.Task {
  const file = def.file ?? '${file}';
  const target = def.target ?? currentTarget();
  const execution = new vscode.ShellExecution('kina', [def.command, file, '--target', target]);
  const task = new vscode.Task(def, scope, `${def.command} ${def.file ?? 'current file'}`, 'kina', execution, ['$kina']);
  if (def.command === 'check' || def.command === 'build') {
    task.group = vscode.TaskGroup.Build;
  }
  return task;
}

export function registerTasks(): vscode.Disposable {
  return vscode.tasks.registerTaskProvider('kina', {
    provideTasks: () => {
      const scope = vscode.workspace.workspaceFolders?.[0] ?? vscode.TaskScope.Workspace;
      return [makeTask({ type: 'kina', command: 'check' }, scope)];
    },
    resolveTask: (task) => {
      const def = task.definition as KinaTaskDefinition;
      if (!def.command) {
        return undefined;
      }
      return makeTask(def, task.scope ?? vscode.TaskScope.Workspace);
    },
  });
}
