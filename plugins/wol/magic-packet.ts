/** Six 0xFF bytes, then the MAC 16 times: 102 bytes, as the reference sends it. */
export const magicPacketLength = 6 + 16 * 6;

/** Each hex digit's value by character code (0-9, a-f, A-F); -1 for every other ASCII character. */
const hexValue = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) hexValue[48 + i] = i;
for (let i = 0; i < 6; i++) hexValue[65 + i] = hexValue[97 + i] = 10 + i;

/**
 * The Wake-on-LAN magic packet for a MAC stored as 12 hex digits without separators. POST
 * /wol builds one per client, often on code not yet optimised: the digits are read straight
 * into the packet, with no regex and no intermediate buffer.
 */
export function magicPacket(mac: string): Buffer {
  if (mac.length !== 12) throw notMac(mac);
  const packet = Buffer.allocUnsafe(magicPacketLength);
  packet[0] = packet[1] = packet[2] = packet[3] = packet[4] = packet[5] = 0xff;
  for (let i = 0; i < 6; i++) {
    const high = hexValue[mac.charCodeAt(2 * i)] ?? -1;
    const low = hexValue[mac.charCodeAt(2 * i + 1)] ?? -1;
    if ((high | low) < 0) throw notMac(mac);
    packet[6 + i] = (high << 4) | low;
  }
  // The MAC at 6 doubled four times: 16 copies.
  packet.copyWithin(12, 6, 12);
  packet.copyWithin(18, 6, 18);
  packet.copyWithin(30, 6, 30);
  packet.copyWithin(54, 6, 54);
  return packet;
}

function notMac(mac: string): Error {
  return new Error(`'${mac}' is not a MAC of 12 hex digits`);
}
