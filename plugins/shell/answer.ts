/** Why a shell/run answer could not be stored; the link then records last_cmd.result 'failure'. */
export class ShellAnswerError extends Error {}

/**
 * The fields of an agent's 200 answer to POST /shell/run (agent-extensions.md):
 * `out` (string) is required, `retcode` (integer) is optional because the reference agent
 * never sends it, `cmd` is the command as the agent ran it.
 */
export function readShellAnswer(body: unknown): { out: string; retcode: number | null; cmd?: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ShellAnswerError('the shell/run answer is not a JSON object');
  const { out, retcode, cmd } = body as Record<string, unknown>;
  if (typeof out !== 'string') throw new ShellAnswerError("the shell/run answer has no 'out' string");
  if (retcode !== undefined && retcode !== null && !Number.isSafeInteger(retcode))
    throw new ShellAnswerError("the shell/run answer's 'retcode' is not an integer");
  return { out, retcode: (retcode as number | null | undefined) ?? null, cmd: typeof cmd === 'string' ? cmd : undefined };
}
