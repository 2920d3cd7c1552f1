import { execFile, spawn } from 'node:child_process';

/** What a Samba tool did: its exit code (null when it could not start) and what it said. */
export interface ToolRun {
  code: number | null;
  out: string;
}

const timeoutMs = 20_000;

/** Run one of Samba's tools (smbcontrol, smbclient, smbpasswd) with `input` on its stdin. */
export function runTool(program: string, args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ToolRun> {
  return new Promise((resolve) => {
    const child = execFile(
      program,
      args,
      { timeout: timeoutMs, maxBuffer: 1024 * 1024, env: { ...process.env, ...options.env } },
      (error, stdout, stderr) => {
        const out = `${stdout}${stderr}`.trim();
        if (!error) return resolve({ code: 0, out });
        const code = typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code as number) : null;
        resolve({ code, out: out || error.message });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

/** Whether a program can be started at all (`smbcontrol` not installed: Debian's samba package). */
export function canRun(program: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(program, ['--version'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', () => resolve(true));
  });
}

/** The NT_STATUS_... word smbclient ended with, if any. */
export function ntStatus(out: string): string | undefined {
  return /\b(NT_STATUS_[A-Z_]+)\b/.exec(out)?.[1];
}
