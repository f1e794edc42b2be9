// "Tune" (the code lens on kernels with `tune` parameters, issue 15): asks for
// a problem shape and runs `kina tune FILE --kernel K --shape S` as a task in
// the terminal, where its progress bar and ETA show; stopping the task (the
// terminal's trash can, or Ctrl+C) cancels it, and the tuner's children with
// it. The result lands in the tuning cache, which hover then shows.
import * as vscode from 'vscode';

import {currentTarget} from './target';

const lastShape = new Map<string, string>();

export async function tuneKernel(document: vscode.TextDocument, kernel: string): Promise<void> {
  const key = `${document.uri.toString()}#${kernel}`;
  const shape = await vscode.window.showInputBox({
    title : `kina tune ${kernel}`,
    prompt : 'Problem shape (the dims of the kernel)',
    value : lastShape.get(key) ?? 'M=4096,N=4096,K=4096',
    validateInput : (v) => (/^\s*\w+=\d+(\s*,\s*\w+=\d+)*\s*$/.test(v)
                                ? undefined
                                : 'NAME=VALUE pairs, e.g. M=4096,N=4096,K=4096'),
  });
  if (!shape) {
    return;
  }
  lastShape.set(key, shape.replace(/\s+/g, ''));
  if (document.isDirty) {
    await document.save();
  }
  const args = [
    'tune', document.uri.fsPath, '--kernel', kernel, '--shape', shape.replace(/\s+/g, ''),
    '--target', currentTarget()
  ];
  const def = {type : 'kina', command : 'tune', file : document.uri.fsPath, kernel};
  const task = new vscode.Task(def, vscode.TaskScope.Workspace, `tune ${kernel}`, 'kina',
                               new vscode.ShellExecution('kina', args), [ '$kina' ]);
  task.presentationOptions = {
    reveal : vscode.TaskRevealKind.Always,
    panel : vscode.TaskPanelKind.Dedicated,
    clear : true
  };
  await vscode.tasks.executeTask(task);
}
