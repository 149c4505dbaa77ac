/**
 * A glob as a regular expression over `/`-separated relative paths: `*` and `?` stay within one
 * segment, `**` crosses segments. A pattern without `/` matches at any depth (as in .gitignore),
 * and a pattern matches everything under a folder it names.
 */
export function globToRegExp(glob: string): RegExp {
  let g = glob.replace(/^\.\//, '').replace(/\/+$/, '');
  if (!g.includes('/')) g = `**/${g}`;
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    if (c === '*' && g[i + 1] === '*') {
      const slash = g[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}(?:/.*)?$`);
}
