import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { UsageError } from './command';

/** The first line of standard input (`--password-stdin`: a script pipes the password in, it never shows in `ps`). */
export async function passwordFromStdin(): Promise<string> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  throw new UsageError('--password-stdin: standard input was empty');
}

/** Ask on the terminal twice, without echo; a usage error when there is no terminal. */
export async function passwordFromTerminal(): Promise<string> {
  if (!process.stdin.isTTY) throw new UsageError('no terminal to ask the password on: pipe it in with --password-stdin');
  const first = await ask('Password: ');
  const again = await ask('Again: ');
  if (first !== again) throw new UsageError('the two passwords differ');
  return first;
}

function ask(prompt: string): Promise<string> {
  process.stderr.write(prompt);
  // What is typed is read but not echoed: the output the prompt would echo on goes nowhere.
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: silent, terminal: true });
  return new Promise((resolve) =>
    rl.question('', (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    }),
  );
}
