// Puts the API page (/docs/) into dist/plugins/openapi/public: this folder's page and script,
// and Swagger UI's script and stylesheet from the installed swagger-ui-dist, served by the
// service itself (nothing from a CDN).
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const out = path.join(root, 'dist/plugins/openapi/public');
const swagger = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

mkdirSync(out, { recursive: true });
for (const file of ['index.html', 'docs.js']) copyFileSync(path.join(here, file), path.join(out, file));
for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png'])
  copyFileSync(path.join(swagger, file), path.join(out, file));
