/**
 * What an image/create request said that the agent's answer does not echo (description,
 * center, group, repository id), kept per client until the answer arrives. An agent runs
 * one command at a time, so the client address identifies the request; the entry goes
 * when the answer is stored, or when the command times out or the agent disconnects.
 */
export interface PendingCreate {
  name: string;
  repositoryId: number;
  description?: string;
  centerId?: number;
  groupId?: number;
}

export class PendingCreates {
  private readonly byIp = new Map<string, PendingCreate>();

  track(ip: string, request: PendingCreate, answer: Promise<unknown>): void {
    this.byIp.set(ip, request);
    const forget = () => {
      if (this.byIp.get(ip) === request) this.byIp.delete(ip);
    };
    answer.then(forget, forget);
  }

  get(ip: string): PendingCreate | undefined {
    return this.byIp.get(ip);
  }

  /** The client an image of this name is being taken from, if any. */
  creating(name: string): string | undefined {
    for (const [ip, request] of this.byIp) if (request.name === name) return ip;
    return undefined;
  }
}
