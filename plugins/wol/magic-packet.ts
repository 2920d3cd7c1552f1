/** Six 0xFF bytes, then the MAC 16 times: 102 bytes, as the reference sends it. */
export const magicPacketLength = 6 + 16 * 6;

const storedMac = /^[0-9a-fA-F]{12}$/;

/** The Wake-on-LAN magic packet for a MAC stored as 12 hex digits without separators. */
export function magicPacket(mac: string): Buffer {
  if (!storedMac.test(mac)) throw new Error(`'${mac}' is not a MAC of 12 hex digits`);
  const address = Buffer.from(mac, 'hex');
  const packet = Buffer.alloc(magicPacketLength, 0xff);
  for (let i = 0; i < 16; i++) address.copy(packet, 6 + i * 6);
  return packet;
}
