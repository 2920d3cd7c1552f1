import { Reply } from 'ogserve';

/**
 * What a PC's screen may show of a message: letters, digits and plain punctuation. iPXE
 * expands `${...}` and splits on operators, so request text never reaches a script as it came.
 */
function screenText(text: string): string {
  return text.replace(/[^A-Za-z0-9 .,:;'()/_=+-]/g, '?').slice(0, 200);
}

/**
 * A script that shows `message` on the PC's screen, leaves it there ten seconds, and hands
 * the PC back to its firmware's next boot device: a boot it cannot serve never hangs the PC.
 */
export function messageScript(message: string): string {
  return `#!ipxe\necho ogserve: ${screenText(message)}\nsleep 10\nexit\n`;
}

/** An iPXE script answer: never cached, as the next boot may need another one. */
export function scriptReply(body: string, status = 200, headers: Record<string, string> = {}): Reply {
  return Reply.text(body, 'text/plain', { status, headers: { 'Cache-Control': 'no-store', ...headers } });
}
