import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { HttpError } from 'ogserve';

/** scrypt's cost: 16 MiB and about 50 ms of one core per hash (OWASP's minimum is N=2^17 with r=8 for 128 MiB; this is its lower-memory equal). */
const cost = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const keyLength = 64;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyLength, { ...params, maxmem: cost.maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/**
 * Hashes and checks passwords with scrypt, a salt of its own per password, at most
 * `parallel` at once: scrypt runs on libuv's thread pool, which SQLite and file writes share,
 * so a spray of sign-ins must not take all of it. Beyond `queued` waiting, a sign-in is
 * refused (503) rather than let the queue and its latency grow without bound.
 */
export class PasswordHasher {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** Checked against when the user does not exist, so that an unknown name costs as long as a wrong password; made at the first such check, not at every start. */
  private decoy?: Promise<string>;

  constructor(
    private readonly parallel = 2,
    private readonly queued = 64,
  ) {}

  /** `scrypt$N$r$p$salt$key`, salt and key in base64. */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await this.bounded(() => derive(password, salt, cost));
    return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
  }

  /** Whether `password` is the one `stored` was made from; false for a stored value it cannot read. */
  async verify(password: string, stored: string): Promise<boolean> {
    const [scheme, n, r, p, salt, key] = stored.split('$');
    if (scheme !== 'scrypt' || !salt || !key) return false;
    const expected = Buffer.from(key, 'base64');
    const params = { N: Number(n), r: Number(r), p: Number(p) };
    const derived = await this.bounded(() => derive(password, Buffer.from(salt, 'base64'), params));
    return derived.length === expected.length && timingSafeEqual(derived, expected);
  }

  /** Spend the time of a check for a user that does not exist; always false. */
  async decoyCheck(password: string): Promise<false> {
    this.decoy ??= this.hash(randomBytes(16).toString('hex'));
    await this.verify(password, await this.decoy);
    return false;
  }

  private async bounded<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.parallel) {
      if (this.waiting.length >= this.queued)
        throw new HttpError(503, 'busy', 'too many sign-ins are being checked at once: try again in a moment');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // The slot passes to the next waiting check as is; only when none waits is it freed.
      if (next) next();
      else this.running--;
    }
  }
}
