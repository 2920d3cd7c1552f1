/** One CSV line: a field with a comma, a quote or a line break is quoted, its quotes doubled (RFC 4180). */
export function csvRow(fields: readonly string[]): string {
  return fields.map((field) => (/[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field)).join(',');
}

/** Have the browser save `text` as a file named `filename`. */
export function saveText(text: string, filename: string, type: string): void {
  saveBlob(new Blob([text], { type }), filename);
}

export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  link.click();
  // The download has started once the click is handled: the URL can go a moment later.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
