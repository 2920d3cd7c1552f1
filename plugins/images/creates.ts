import type { ObservedDispatch } from '../agents';

/** How long a create request made for a client waits to be sent before it is forgotten (a busy client's queued step). */
const unsentMs = 30_000;

interface UnderWay {
  name: string;
  /** Set until the request is seen sent. */
  unsent?: NodeJS.Timeout;
}

/**
 * The creates under way, whoever asked (a REST call or a queued step): the image name each
 * client is writing, from the moment its request is made (before it is sent: the share must be
 * writable when the agent mounts it) until its command ends however it ends (the dispatch
 * observer follows its answer). A request never sent (the client busy or gone) is forgotten
 * when its dispatch says so, or after 30 s. What is being written is not checked or moved
 * meanwhile, and the share is writable only while this is not empty.
 */
export class CreatesUnderWay {
  private readonly byIp = new Map<string, UnderWay>();
  private readonly listeners: ((count: number) => void | Promise<void>)[] = [];
  private readonly ends: ((ip: string) => void | Promise<void>)[] = [];

  /** Hear the count change (the share's writability follows it); `start` waits for the listeners. */
  onChange(listener: (count: number) => void | Promise<void>): void {
    this.listeners.push(listener);
  }

  /** Hear each client's create end, however it ended (a kept version goes back unless its answer was stored). */
  onEnd(listener: (ip: string) => void | Promise<void>): void {
    this.ends.push(listener);
  }

  /** A create request is being made for `ip`: resolves once the listeners heard it. */
  async start(ip: string, name: string): Promise<void> {
    const before = this.byIp.size;
    clearTimeout(this.byIp.get(ip)?.unsent);
    const unsent = setTimeout(() => this.end(ip), unsentMs);
    unsent.unref();
    this.byIp.set(ip, { name, unsent });
    if (this.byIp.size === before) return;
    try {
      for (const listener of this.listeners) await listener(this.byIp.size);
    } catch (error) {
      // Not made ready (the share could not be made writable): the create is not sent.
      this.end(ip);
      throw error;
    }
  }

  end(ip: string): void {
    const entry = this.byIp.get(ip);
    if (!entry) return;
    clearTimeout(entry.unsent);
    this.byIp.delete(ip);
    for (const listener of this.ends) void listener(ip);
    for (const listener of this.listeners) void listener(this.byIp.size);
  }

  /** The dispatch observer: a create sent is followed to its end; one not sent is forgotten now. */
  observed(dispatch: ObservedDispatch): void {
    if (dispatch.kind !== 'image/create') return;
    for (const { addr } of dispatch.outcomes) {
      const answer = dispatch.answers.get(addr);
      const entry = this.byIp.get(addr);
      if (!answer) {
        this.end(addr);
        continue;
      }
      if (entry) {
        clearTimeout(entry.unsent);
        entry.unsent = undefined;
      }
      const ended = () => {
        if (this.byIp.get(addr) === entry) this.end(addr);
      };
      answer.then(ended, ended);
    }
  }

  /** Whether `name` is being written by a client now. */
  has(name: string): boolean {
    for (const entry of this.byIp.values()) if (entry.name === name) return true;
    return false;
  }

  get count(): number {
    return this.byIp.size;
  }

  stop(): void {
    for (const entry of this.byIp.values()) clearTimeout(entry.unsent);
    this.byIp.clear();
  }
}
