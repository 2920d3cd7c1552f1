// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import dns from 'node:dns';
import { test } from 'uvu';
import { magicPacket } from '../../../plugins/wol/magic-packet';
import { WakeSocket } from '../../../plugins/wol/sender';
import { macFor } from '../../support/fixtures';
import { UdpReceiver } from '../../support/udp-receiver';

test('one socket sends 2,000 packets to a loopback broadcast address, all arriving', async () => {
  const receiver = await UdpReceiver.bind('127.255.255.255');
  const socket = await WakeSocket.open();
  try {
    const datagrams = Array.from({ length: 2000 }, (_, i) => ({ address: '127.255.255.255', packet: magicPacket(macFor(i + 1)) }));
    const errors = await socket.sendAll(datagrams, receiver.port);
    assert.equal(errors.filter(Boolean).length, 0, `no send failed: ${errors.find(Boolean)}`);
    const received = await receiver.waitFor(2000);
    const macs = new Set(received.map((p) => p.data.subarray(6, 12).toString('hex')));
    assert.equal(macs.size, 2000, 'every packet arrived once');
  } finally {
    await socket.close();
    await receiver.close();
  }
});

test('a packet the kernel refuses is reported without stopping the others', async () => {
  const receiver = await UdpReceiver.bind('127.0.0.1');
  const socket = await WakeSocket.open();
  try {
    const packet = magicPacket('0a0b0c0d0e0f');
    const errors = await socket.sendAll(
      [
        { address: '127.0.0.1', packet },
        { address: '::1', packet }, // an IPv6 literal on an IPv4 socket: EINVAL, no lookup, no traffic
        { address: '127.0.0.1', packet },
      ],
      receiver.port,
    );
    assert.equal(errors[0], undefined, 'first sent');
    assert.ok(errors[1] instanceof Error, 'the refused one failed');
    assert.equal(errors[2], undefined, 'the one after it still sent');
    assert.equal((await receiver.waitFor(2)).length, 2, 'both good packets arrived');
  } finally {
    await socket.close();
    await receiver.close();
  }
});

test('IPv4 literals are sent without a DNS lookup; a host name is still resolved', async () => {
  const receiver = await UdpReceiver.bind('127.0.0.1');
  const lookup = dns.lookup;
  const looked: string[] = [];
  dns.lookup = ((hostname: string, ...rest: unknown[]) => {
    looked.push(hostname);
    return (lookup as (...args: unknown[]) => unknown)(hostname, ...rest);
  }) as typeof dns.lookup;
  let socket: WakeSocket | undefined;
  try {
    socket = await WakeSocket.open();
    const datagrams = Array.from({ length: 40 }, (_, i) => ({ address: '127.0.0.1', packet: magicPacket(macFor(i + 1)) }));
    datagrams.push({ address: 'localhost', packet: magicPacket(macFor(41)) });
    const errors = await socket.sendAll(datagrams, receiver.port);
    assert.equal(errors.filter(Boolean).length, 0, `all sent: ${errors.find(Boolean)}`);
    assert.deepEqual(looked, ['localhost'], 'only the host name was looked up');
    assert.equal((await receiver.waitFor(41)).length, 41, 'every packet arrived, the one to localhost too');
  } finally {
    dns.lookup = lookup;
    await socket?.close();
    await receiver.close();
  }
});

/** `promise`, or a failure after `ms` instead of a hang. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

test('a datagram whose send throws at once is reported in its place, across batches; the others are sent', async () => {
  const receiver = await UdpReceiver.bind('127.0.0.1');
  const socket = await WakeSocket.open();
  try {
    const thrownAt = new Set([0, 31, 32, 70]);
    const datagrams = Array.from({ length: 71 }, (_, i) => ({
      address: i === 40 ? '::1' : '127.0.0.1',
      // Not a buffer: dgram throws before anything is sent.
      packet: thrownAt.has(i) ? (42 as unknown as Buffer) : magicPacket(macFor(i + 1)),
    }));
    const errors = await within(socket.sendAll(datagrams, receiver.port), 5000, 'sendAll');
    assert.equal(errors.length, 71, 'one result per datagram');
    const failed = errors.flatMap((error, i) => (error ? [i] : []));
    assert.deepEqual(failed, [0, 31, 32, 40, 70], 'the thrown ones and the refused one, each in its place');
    assert.ok(
      errors.every((error) => error === undefined || error instanceof Error),
      'each result is an Error or undefined',
    );
    assert.equal((await receiver.waitFor(66)).length, 66, 'every other packet arrived');
  } finally {
    await socket.close();
    await receiver.close();
  }
});

test('no datagram: resolves with no result', async () => {
  const socket = await WakeSocket.open();
  try {
    assert.deepEqual(await within(socket.sendAll([], 9), 1000, 'sendAll'), [], 'nothing to report');
  } finally {
    await socket.close();
  }
});

test('the event loop gets a turn between batches of 32 datagrams', async () => {
  const receiver = await UdpReceiver.bind('127.0.0.1');
  const socket = await WakeSocket.open();
  try {
    let turns = 0;
    let sending = true;
    const turn = () => {
      turns++;
      if (sending) setImmediate(turn);
    };
    setImmediate(turn);
    const datagrams = Array.from({ length: 100 }, (_, i) => ({ address: '127.0.0.1', packet: magicPacket(macFor(i + 1)) }));
    const errors = await socket.sendAll(datagrams, receiver.port);
    sending = false;
    assert.equal(errors.filter(Boolean).length, 0, 'all sent');
    assert.ok(turns >= 3, `the loop turned between the 4 batches (${turns} turns)`);
    await receiver.waitFor(100);
  } finally {
    await socket.close();
    await receiver.close();
  }
});

test.run();
