import assert from 'node:assert/strict';
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

test.run();
