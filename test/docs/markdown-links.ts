import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The relative links of Markdown files and the anchors GitHub gives their headings, to check
 * that every link of the documentation leads somewhere. External links (any `scheme:`) are
 * left alone: the test never fetches them.
 */

/** A link found in a Markdown file: its target as written and the line it is on. */
export interface Link {
  target: string;
  line: number;
}

/** The documentation: README.md, every page under docs/, and each plugin folder's README. */
export function documentationFiles(root: string): string[] {
  const pages = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return pages(full);
      return entry.name.endsWith('.md') ? [full] : [];
    });
  const plugins = path.join(root, 'plugins');
  const pluginReadmes = readdirSync(plugins)
    .map((name) => path.join(plugins, name, 'README.md'))
    .filter((file) => existsSync(file));
  return [path.join(root, 'README.md'), ...pages(path.join(root, 'docs')), ...pluginReadmes];
}

/**
 * The lines of `text` outside fenced code blocks (a link or a heading written as an example in
 * code is not one), each as written and with its inline code spans blanked.
 */
function proseLines(text: string): { raw: string; text: string; line: number }[] {
  const lines: { raw: string; text: string; line: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, index) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (fence) {
      if (opening && opening[1]!.startsWith(fence)) fence = undefined;
      return;
    }
    if (opening) {
      fence = opening[1];
      return;
    }
    lines.push({ raw, text: raw.replace(/(`+)(?:(?!\1).)+?\1/g, (span) => ' '.repeat(span.length)), line: index + 1 });
  });
  return lines;
}

/** Inline links and images `[text](target "title")`, and reference definitions `[name]: target`. */
export function linksOf(text: string): Link[] {
  const links: Link[] = [];
  for (const { text: line, line: number } of proseLines(text)) {
    for (const match of line.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: match[1]!.replace(/^<|>$/g, ''), line: number });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*(\S+)/.exec(line);
    if (definition) links.push({ target: definition[1]!.replace(/^<|>$/g, ''), line: number });
  }
  return links;
}

/**
 * The anchor GitHub gives a heading: its text as shown (code marks, emphasis and link targets
 * dropped), lower case, punctuation removed, each space a dash.
 */
export function anchorOf(heading: string): string {
  const shown = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim();
  return shown
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings, a repeated one numbered as GitHub does (-1, -2...). */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { raw: line } of proseLines(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!heading) continue;
    const base = anchorOf(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/**
 * What is wrong with the relative links of `files`, one line each (`file:line: target: why`),
 * paths shown from `root`; an empty list when every link leads to a file that exists and every
 * `#anchor` to a heading of its page.
 */
export function brokenLinks(root: string, files: string[]): string[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    let found = anchorCache.get(file);
    if (!found) anchorCache.set(file, (found = anchorsOf(readFileSync(file, 'utf8'))));
    return found;
  };
  const problems: string[] = [];
  for (const file of files) {
    for (const { target, line } of linksOf(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http(s), mailto: never fetched
      const where = `${path.relative(root, file)}:${line}: ${target}`;
      const hash = target.indexOf('#');
      const linkPath = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved =
        linkPath === '' ? file : linkPath.startsWith('/') ? path.join(root, linkPath) : path.resolve(path.dirname(file), linkPath);
      if (!existsSync(resolved)) {
        problems.push(`${where}: no such file ${path.relative(root, resolved)}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
        problems.push(`${where}: an anchor into ${path.relative(root, resolved)}, which is not a Markdown page`);
      } else if (!anchors(resolved).has(anchor)) {
        problems.push(`${where}: ${path.relative(root, resolved)} has no heading with the anchor #${anchor}`);
      }
    }
  }
  return problems;
}
