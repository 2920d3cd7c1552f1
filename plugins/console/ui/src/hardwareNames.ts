import { type MessageKey, t } from './i18n';

/**
 * Hardware types in the console's language. GET /hardware names each type as the site's
 * `agents.hardware_type_names` says (the reference's Spanish descriptions, or English ones),
 * whatever language the console is in; the console knows the reference's codes, and the
 * names either list gives them, and says each in its own words.
 */
const codes: Record<string, string> = {
  Placas: 'boa',
  'Dispositivos Multimedia': 'mul',
  'Tarjetas de Red': 'net',
  Microprocesadores: 'cpu',
  Memorias: 'mem',
  'Tarjetas gráficas': 'vga',
  Discos: 'dis',
  'Dispositivos de sonido': 'aud',
  'Marca y modelo del equipo': 'mod',
  'Modelo y version de la bios': 'bio',
  'Modelo de grabadora o  grabadora de CD/DVD': 'cdr',
  'Controladores IDE': 'ide',
  'Controladores FireWire': 'fir',
  'Controladores USB': 'usb',
  'Bus del Sistema': 'bus',
  'Chasis del Sistema': 'cha',
  'Controladores de almacenamiento': 'sto',
  'Tipo de proceso de arranque': 'boo',
  Board: 'boa',
  'Multimedia device': 'mul',
  'Network card': 'net',
  CPU: 'cpu',
  Memory: 'mem',
  'Graphics card': 'vga',
  Disk: 'dis',
  'Audio device': 'aud',
  'Make and model': 'mod',
  BIOS: 'bio',
  'Optical drive': 'cdr',
  'IDE controller': 'ide',
  'FireWire controller': 'fir',
  'USB controller': 'usb',
  'System bus': 'bus',
  Chassis: 'cha',
  'Storage controller': 'sto',
  'Boot type': 'boo',
};

const known = new Set(Object.values(codes));

/** A hardware type (a code such as `mem`, or the name GET /hardware gave) in the console's language; another as it came. */
export function hardwareName(typeOrCode: string): string {
  const code = known.has(typeOrCode) ? typeOrCode : codes[typeOrCode];
  return code ? t(`hw.${code}` as MessageKey) : typeOrCode;
}
