// System needs: openssl
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** A new elliptic-curve key (generated in milliseconds) with an unencrypted key file. */
const newKey = (keyFile: string) => ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile];

/**
 * A throwaway CA (ca.pem, ca.key) in `dir`; also what a test uses as a CA that signed nothing
 * of the server's.
 */
export async function makeTestCa(dir: string, name = 'ogserve test CA'): Promise<string> {
  const caFile = path.join(dir, 'ca.pem');
  await openssl(['req', '-x509', ...newKey(path.join(dir, 'ca.key')), '-out', caFile, '-days', '2', '-subj', `/CN=${name}`]);
  return caFile;
}

/** What a server certificate holds besides 127.0.0.1, and its key's kind. */
export interface ServerCertificateOptions {
  /** subjectAltName entries before IP:127.0.0.1, as openssl writes them (`DNS:ogserve.test`). */
  names?: string[];
  /** An RSA key, which static-RSA key exchange needs (the default elliptic-curve key cannot do it). */
  rsa?: boolean;
}

/** ca.pem plus server.pem/server.key for 127.0.0.1 (an IP subjectAltName: clients check it). */
export async function makeServerCertificate(dir: string, options: ServerCertificateOptions = {}): Promise<string> {
  const caFile = await makeTestCa(dir);
  const file = (name: string) => path.join(dir, name);
  const names = [...(options.names ?? []), 'IP:127.0.0.1'].join(',');
  writeFileSync(file('server.ext'), `subjectAltName=${names}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  const key = options.rsa ? ['-newkey', 'rsa:2048', '-nodes', '-keyout', file('server.key')] : newKey(file('server.key'));
  await openssl(['req', ...key, '-out', file('server.csr'), '-subj', '/CN=127.0.0.1']);
  const signing = ['-CA', caFile, '-CAkey', file('ca.key'), '-set_serial', '2', '-days', '2', '-extfile', file('server.ext')];
  await openssl(['x509', '-req', '-in', file('server.csr'), ...signing, '-out', file('server.pem')]);
  return caFile;
}

function openssl(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('openssl', args, { timeout: 20_000 }, (error) => (error ? reject(new Error(error.message.trim())) : resolve()));
  });
}
