import { type ArtifactSet, type ArtifactSource, type ArtifactType, artifactKey, type LoadProblem, type RawArtifact, type SourceNotice } from './artifact.ts';
import { describeJsonSyntaxError } from './describe-json-syntax-error.ts';
import { didYouMean } from './edit-distance.ts';
import { childPointer, pointer } from './json-pointer.ts';
import { navTypeNotices } from './nav-type-notices.ts';

/** Deepest nesting a body may have; deeper bodies are refused as invalid (and never recursed into). */
export const MAX_DEPTH = 64;

/** Stack keys read and the artifact type each holds. Other keys are ignored. */
export const STACK_KEYS: ReadonlyArray<readonly [string, ArtifactType]> = [
  ['objects', 'object'],
  ['views', 'view'],
  ['dashboards', 'dashboard'],
  ['datasets', 'dataset'],
  ['apps', 'app'],
  ['data', 'seed'],
  ['reports', 'report'],
  ['pages', 'page'],
  // Profiles are permission sets (ObjectStack's isProfile); `permissions` last, so it is the type's own key.
  ['profiles', 'permission'],
  ['permissions', 'permission'],
  ['sharingRules', 'sharing_rule'],
];

/**
 * ObjectStack stack keys bvl does not read (they hold nothing the layers check): not a typo of a
 * read key, however close (`apis` is not `apps`, `datasources` is not `data`).
 */
export const UNREAD_STACK_KEYS: ReadonlySet<string> = new Set([
  'actions',
  'agents',
  'analyticsCubes',
  'apis',
  'approvals',
  'books',
  'capabilities',
  'connectors',
  'datasources',
  'description',
  'devPlugins',
  'emailTemplates',
  'flows',
  'functions',
  'hooks',
  'i18n',
  'jobs',
  'label',
  'manifest',
  'mappings',
  'name',
  'namespace',
  'objectExtensions',
  'plugins',
  'policies',
  'positions',
  'ragPipelines',
  'requires',
  'roles',
  'themes',
  'translations',
  'version',
  'webhooks',
  'workflows',
]);

/** Where a view's config sits in its stored document, for the fixed places (one string each, shared by every view). */
const IN_DOC = { list: pointer('list'), form: pointer('form'), config: pointer('config') } as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/**
 * The first value no database can store, or undefined: a string (value or key) holding a NUL
 * character (PostgreSQL text and jsonb reject U+0000), a number JSON parsed to ±Infinity
 * (`1e400`), which would silently become null, or a key `__proto__`, which a JavaScript record
 * (ObjectStack's and bvl's writers build them) cannot hold: assigning it sets the prototype, so a
 * field of that name or a seed value under it would silently be null.
 */
export function findUnstorable(value: unknown): { path: string; what: string; fix?: string } | undefined {
  // A depth-first walk over parallel arrays (no object per value): each stacked value keeps its key
  // and the container it is in; a container met is recorded (its key, its parent) so the path of
  // the value found is built only then.
  const frameKey: Array<string | number | undefined> = [];
  const frameParent: number[] = [];
  const pathOf = (frame: number, last?: string | number): string => {
    const keys: Array<string | number> = last === undefined ? [] : [last];
    for (let at = frame; at >= 0 && frameKey[at] !== undefined; at = frameParent[at]!) keys.push(frameKey[at]!);
    return pointer(...keys.reverse());
  };
  const values: unknown[] = [value];
  const keys: Array<string | number | undefined> = [undefined];
  const parents: number[] = [-1];
  while (values.length > 0) {
    const v = values.pop();
    const key = keys.pop();
    const parent = parents.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { path: pathOf(parent, key), what: 'a NUL character (U+0000), which no database text can store' };
      continue;
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v))
        return { path: pathOf(parent, key), what: 'a number too large for any numeric column (it parses to infinity and would be stored as null)' };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const frame = frameKey.length;
    frameKey.push(key);
    frameParent.push(parent);
    if (Array.isArray(v))
      for (let i = 0; i < v.length; i++) {
        values.push(v[i]);
        keys.push(i);
        parents.push(frame);
      }
    else
      for (const k of Object.keys(v)) {
        if (k.includes('\u0000')) return { path: pathOf(frame, k), what: 'a key with a NUL character (U+0000), which no database text can store' };
        if (k === '__proto__')
          return {
            path: pathOf(frame, k),
            what: 'the key "__proto__", which no JavaScript record holds (writing it sets the record\'s prototype, so its value would be lost: a field of that name is always empty)',
            fix: 'Rename the key "__proto__" (e.g. "proto"); no field, option or record key may be named so.',
          };
        values.push((v as Record<string, unknown>)[k]);
        keys.push(k);
        parents.push(frame);
      }
  }
  return undefined;
}

const FINE = 0;
const UNSTORABLE = 1;
const TOO_DEEP = 2;

/**
 * One pass over a body for its depth and for what {@link findUnstorable} looks for: TOO_DEEP as
 * soon as a container is deeper than MAX_DEPTH (the walk stops there, so recursion is bounded),
 * else UNSTORABLE when some value would be (findUnstorable then says which, as it always did),
 * else FINE. Allocates nothing per value.
 */
function screen(v: object, depth: number): number {
  if (depth > MAX_DEPTH) return TOO_DEEP;
  let found = FINE;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const child: unknown = v[i];
      if (typeof child === 'object' && child !== null) {
        const r = screen(child, depth + 1);
        if (r === TOO_DEEP) return r;
        found |= r;
      } else if (unstorableLeaf(child)) found = UNSTORABLE;
    }
    return found;
  }
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    if (k === '__proto__' || k.includes('\u0000')) found = UNSTORABLE;
    const child: unknown = (v as Record<string, unknown>)[k];
    if (typeof child === 'object' && child !== null) {
      const r = screen(child, depth + 1);
      if (r === TOO_DEEP) return r;
      found |= r;
    } else if (unstorableLeaf(child)) found = UNSTORABLE;
  }
  return found;
}

const unstorableLeaf = (v: unknown): boolean => (typeof v === 'string' ? v.includes('\u0000') : typeof v === 'number' && !Number.isFinite(v));

/** What {@link ArtifactCollector.add} screens a body for: 2 nested too deep, 1 holds an unstorable value, 0 neither. */
export function screenBody(body: unknown): number {
  return typeof body === 'object' && body !== null ? screen(body, 1) : unstorableLeaf(body) ? UNSTORABLE : FINE;
}

/** Options for collecting artifacts. */
export interface CollectOptions {
  readonly file?: string | undefined;
  readonly draft?: boolean | undefined;
}

/** Accumulates raw artifacts, dropping (and reporting) a second artifact of the same type+name. */
export class ArtifactCollector {
  readonly artifacts: RawArtifact[] = [];
  readonly problems: LoadProblem[] = [];
  readonly notices: SourceNotice[] = [];
  private readonly seen = new Map<string, RawArtifact>();
  private readonly seedCount = new Map<string, number>();

  constructor(private readonly draft: boolean) {}

  /** Adds one artifact body found at `source`; `fallbackName` names it when its body does not. */
  add(type: ArtifactType, body: unknown, source: ArtifactSource, fallbackName: string): void {
    // Depth and storability in one pass; findUnstorable runs again only to name what it found.
    const screened = screenBody(body);
    if (screened === TOO_DEEP) {
      this.problem(
        'invalid_artifact',
        type,
        nameOf(type, body) ?? fallbackName,
        source,
        `The ${type} body is nested more than ${MAX_DEPTH} levels deep; bvl refuses to read it.`,
        'Flatten the artifact: no real metadata nests this deep.',
      );
      // The name still resolves (no cascade of dangling references), but the body is never read.
      const name = nameOf(type, body) ?? fallbackName;
      if (type !== 'view') this.push({ type, name, body: {}, source, draft: this.draft, refused: true });
      return;
    }
    const unstorable = screened === UNSTORABLE ? findUnstorable(body) : undefined;
    if (unstorable !== undefined) {
      const name = nameOf(type, body)?.replaceAll('\u0000', '\\0') ?? fallbackName;
      this.problems.push({
        code: 'invalid_artifact',
        type,
        name,
        message: `The ${type} holds ${unstorable.what} at ${unstorable.path || '/'}, so it could never be published as written.`,
        fix: unstorable.fix ?? `Correct the value at ${unstorable.path || '/'}.`,
        path: unstorable.path,
        draft: this.draft,
        source,
      });
      if (type !== 'view') this.push({ type, name, body: {}, source, draft: this.draft, refused: true });
      return;
    }
    if (!isRecord(body)) {
      this.problem(
        'invalid_artifact',
        type,
        fallbackName,
        source,
        `The ${type} at ${source.pointer || '/'} is ${describe(body)}, not a JSON object.`,
        `Write the ${type} as a JSON object.`,
      );
      return;
    }
    if (type === 'view') return this.addView(body, source, fallbackName);
    if (type === 'seed') {
      const object = str(body.object) ?? fallbackName;
      const n = (this.seedCount.get(object) ?? 0) + 1;
      this.seedCount.set(object, n);
      return this.push({ type, name: n === 1 ? object : `${object}#${n}`, body, source, draft: this.draft });
    }
    const name = str(body.name) ?? fallbackName;
    this.push({ type, name, body, source, draft: this.draft });
    if (type === 'app') this.notices.push(...navTypeNotices(name, body, source));
    // An object may declare list views itself (ObjectSchema `listViews`); they are views like any other.
    if (type === 'object' && isRecord(body.listViews)) {
      const container = `object:${name}`;
      for (const [key, config] of Object.entries(body.listViews)) {
        const pointerInDoc = pointer('listViews', key);
        if (!isRecord(config)) continue;
        this.push({
          type: 'view',
          name: `${name}.${key}`,
          body: config,
          source: { ...source, pointer: source.pointer + pointerInDoc },
          draft: this.draft,
          viewKind: 'list',
          object: bindingOf(config) ?? name,
          key,
          docPrefix: pointerInDoc,
          container,
        });
      }
    }
  }

  /** The collected set. */
  result(): ArtifactSet {
    return this.notices.length > 0
      ? { artifacts: this.artifacts, problems: this.problems, notices: this.notices }
      : { artifacts: this.artifacts, problems: this.problems };
  }

  private addView(body: Record<string, unknown>, source: ArtifactSource, fallbackName: string): void {
    // ViewItem: {name, object, viewKind, config}
    if (isRecord(body.config)) {
      const kind = body.viewKind === 'form' ? 'form' : 'list';
      const object = str(body.object) ?? bindingOf(body.config);
      const [nameObject, key] = splitViewName(str(body.name), object, fallbackName);
      return this.push({
        type: 'view',
        name: `${nameObject}.${key}`,
        body: body.config,
        source: { ...source, pointer: source.pointer + IN_DOC.config },
        draft: this.draft,
        viewKind: kind,
        object,
        key,
        docPrefix: IN_DOC.config,
      });
    }
    const isContainer = ['list', 'form', 'listViews', 'formViews'].some((k) => k in body);
    if (isContainer) return this.addContainer(body, source, fallbackName);
    // Flattened overlay: an inline ListView/FormView plus object and viewKind (#7741).
    if (body.viewKind === 'list' || body.viewKind === 'form') {
      const object = str(body.object) ?? bindingOf(body);
      const [nameObject, key] = splitViewName(str(body.name), object, fallbackName);
      return this.push({ type: 'view', name: `${nameObject}.${key}`, body, source, draft: this.draft, viewKind: body.viewKind, object, key, docPrefix: '' });
    }
    const object = str(body.object) ?? bindingOf(body);
    this.problem(
      'invalid_artifact',
      'view',
      str(body.name)?.includes('.') ? str(body.name)! : object ? `${object}.${str(body.name) ?? 'default'}` : fallbackName,
      source,
      'This view body is neither a container ({list, listViews, form, formViews}), a view item ({name, object, viewKind, config}) nor an inline view with object and viewKind; it parses to an empty container and nothing renders.',
      object
        ? `Wrap it as {"list": <this view>} or add "viewKind": "list" and "object": "${object}".`
        : 'Wrap it as {"list": <this view>} and bind it with data.object.',
    );
  }

  private addContainer(body: Record<string, unknown>, source: ArtifactSource, fallbackName: string): void {
    const containerObject =
      str(body.object) ?? (isRecord(body.list) ? bindingOf(body.list) : undefined) ?? (isRecord(body.form) ? bindingOf(body.form) : undefined);
    const taken = new Set<string>();
    const items: Array<{ key: string; kind: 'list' | 'form'; config: unknown; pointer: string; inDoc: string }> = [];
    const take = (key: string): string => {
      let k = key;
      for (let n = 2; taken.has(k); n++) k = `${key}_${n}`;
      taken.add(k);
      return k;
    };
    const family = (mapKey: 'listViews' | 'formViews', kind: 'list' | 'form') => {
      const map = body[mapKey];
      if (map === undefined) return;
      if (!isRecord(map)) {
        this.problem(
          'invalid_artifact',
          'view',
          `${containerObject ?? fallbackName}.${mapKey}`,
          { ...source, pointer: childPointer(source.pointer, mapKey) },
          `The container's ${mapKey} is ${describe(map)}, not an object of named views.`,
          `Write ${mapKey} as {"<key>": { …view… }}.`,
        );
        return;
      }
      for (const [key, config] of Object.entries(map)) {
        const inDoc = pointer(mapKey, key);
        items.push({ key: take(key), kind, config, pointer: source.pointer + inDoc, inDoc });
      }
    };
    family('listViews', 'list');
    // The default list claims `<object>.default`; a colliding key is renamed `<key>_2`, as ObjectStack does.
    if (body.list !== undefined)
      items.push({ key: take('default'), kind: 'list', config: body.list, pointer: source.pointer + IN_DOC.list, inDoc: IN_DOC.list });
    family('formViews', 'form');
    if (body.form !== undefined) items.push({ key: take('form'), kind: 'form', config: body.form, pointer: source.pointer + IN_DOC.form, inDoc: IN_DOC.form });
    if (items.length === 0) {
      this.problem(
        'invalid_artifact',
        'view',
        containerObject ?? fallbackName,
        source,
        'The view container defines no view: list, listViews, form and formViews are all empty.',
        'Add at least a default "list" view.',
      );
      return;
    }
    // One string for the container, shared by its views (a view's pointer shares its docPrefix).
    const container = `container:${containerObject ?? fallbackName}`;
    for (const item of items) {
      const object = (isRecord(item.config) ? bindingOf(item.config) : undefined) ?? containerObject;
      const name = `${object ?? fallbackName}.${item.key}`;
      if (!isRecord(item.config)) {
        this.problem(
          'invalid_artifact',
          'view',
          name,
          { ...source, pointer: item.pointer },
          `View "${name}" is ${describe(item.config)}, not a view object.`,
          'Write the view as a JSON object with type, data and columns.',
        );
        continue;
      }
      this.push({
        type: 'view',
        name,
        body: item.config,
        source: { ...source, pointer: item.pointer },
        draft: this.draft,
        viewKind: item.kind,
        object,
        key: item.key,
        docPrefix: item.inDoc,
        container,
      });
    }
  }

  private push(a: RawArtifact): void {
    const k = artifactKey(a.type, a.name);
    const first = this.seen.get(k);
    if (first) {
      const where = (s: ArtifactSource) => `${s.file ? `${s.file}` : ''}${s.pointer ? `#${s.pointer}` : ''}`;
      this.problem(
        'duplicate_artifact',
        a.type,
        a.name,
        a.source,
        `A second ${a.type} named "${a.name}" (at ${where(a.source)}) duplicates the one at ${where(first.source)}; only the first is used.`,
        `Rename or remove one of the two ${a.type}s named "${a.name}".`,
      );
      return;
    }
    this.seen.set(k, a);
    this.artifacts.push(a);
  }

  private problem(code: LoadProblem['code'], type: ArtifactType, name: string, source: ArtifactSource, message: string, fix?: string): void {
    this.problems.push({ code, type, name, message, fix, draft: this.draft, source });
  }
}

/** Collects the artifacts of a stack document (the JSON form of `defineStack({...})`). */
export function collectStack(doc: unknown, options: CollectOptions = {}): ArtifactSet {
  const c = new ArtifactCollector(options.draft ?? false);
  const file = options.file;
  if (!isRecord(doc)) {
    c.problems.push({
      code: 'invalid_artifact',
      type: 'object',
      name: file ?? 'stack',
      message: `The stack is ${describe(doc)}, not a JSON object with objects/views/dashboards/datasets/apps/data.`,
      fix: 'Export the stack as a JSON object.',
      draft: options.draft ?? false,
      source: { file, pointer: '' },
    });
    return c.result();
  }
  for (const [key, type] of STACK_KEYS) {
    const list = doc[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      if (isRecord(list) && type !== 'seed') {
        // Record form `{ name: body }` is accepted: the key names the artifact.
        for (const [name, body] of Object.entries(list))
          c.add(type, isRecord(body) && type !== 'view' && body.name === undefined ? { ...body, name } : body, { file, pointer: pointer(key, name) }, name);
        continue;
      }
      c.problems.push({
        code: 'invalid_artifact',
        type,
        name: key,
        message: `Stack key "${key}" is ${describe(list)}, not an array of ${type}s.`,
        fix: `Write "${key}" as an array.`,
        draft: options.draft ?? false,
        source: { file, pointer: pointer(key) },
      });
      continue;
    }
    list.forEach((body, i) => c.add(type, body, { file, pointer: pointer(key, i) }, `${key}[${i}]`));
  }
  const read = STACK_KEYS.map(([k]) => k);
  for (const key of Object.keys(doc)) {
    if (read.includes(key) || UNREAD_STACK_KEYS.has(key)) continue;
    const near = didYouMean(key, read, 1);
    if (near.length > 0)
      c.notices.push({ file, pointer: pointer(key), message: `The stack's "${key}" is not read (did you mean "${near[0]}"?); what it holds is not checked.` });
  }
  if (c.artifacts.length === 0 && c.problems.length === 0)
    c.notices.push({ file, message: `${file ?? 'The stack'} holds no artifacts bvl reads (${read.join(', ')}); nothing was checked.` });
  return c.result();
}

/** One file of a per-artifact folder: its path relative to the folder and its text. */
export interface FolderFile {
  readonly path: string;
  readonly text: string;
}

/** Folder layout: `objects/*.json`, `views/`, `dashboards/`, `datasets/`, `apps/`, `seeds/`, `reports/`, `pages/`. */
export const FOLDER_DIRS: Readonly<Record<string, ArtifactType>> = {
  objects: 'object',
  views: 'view',
  dashboards: 'dashboard',
  datasets: 'dataset',
  apps: 'app',
  seeds: 'seed',
  data: 'seed',
  reports: 'report',
  pages: 'page',
  permissions: 'permission',
  profiles: 'permission',
  sharingRules: 'sharing_rule',
};

/**
 * Collects a per-artifact folder from its files (already read). A file holds one artifact or an
 * array of them. A file that is not JSON is an `invalid_artifact` named after the file, and the
 * rest of the folder is still loaded.
 */
export function collectFolder(files: readonly FolderFile[], options: { readonly root?: string; readonly draft?: boolean } = {}): ArtifactSet {
  const c = new ArtifactCollector(options.draft ?? false);
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of sorted) {
    const [dir] = f.path.split('/');
    const type = dir && Object.hasOwn(FOLDER_DIRS, dir) ? FOLDER_DIRS[dir] : undefined;
    if (!type || !f.path.endsWith('.json')) continue;
    const stem = f.path.slice(f.path.lastIndexOf('/') + 1, -'.json'.length);
    const file = options.root ? `${options.root}/${f.path}` : f.path;
    let body: unknown;
    try {
      body = JSON.parse(f.text);
    } catch {
      c.problems.push({
        code: 'invalid_artifact',
        type,
        name: stem,
        message: `${f.path} is not valid JSON: ${describeJsonSyntaxError(f.text)}.`,
        fix: `Fix the JSON syntax of ${f.path}.`,
        draft: options.draft ?? false,
        source: { file, pointer: '' },
      });
      continue;
    }
    if (Array.isArray(body)) body.forEach((b, i) => c.add(type, b, { file, pointer: pointer(i) }, `${stem}[${i}]`));
    else c.add(type, body, { file, pointer: '' }, stem);
  }
  if (c.artifacts.length === 0 && c.problems.length === 0)
    c.notices.push({
      file: options.root,
      message: `${options.root ?? 'The folder'} holds no artifact files (*.json under ${Object.keys(FOLDER_DIRS).join('/, ')}/); nothing was checked.`,
    });
  return c.result();
}

function bindingOf(config: unknown): string | undefined {
  if (!isRecord(config)) return undefined;
  const data = isRecord(config.data) ? config.data : undefined;
  return str(data?.object) ?? str(data?.objectName) ?? str(config.objectName) ?? str(config.object);
}

function splitViewName(name: string | undefined, object: string | undefined, fallback: string): [string, string] {
  if (name?.includes('.')) {
    const i = name.indexOf('.');
    return [name.slice(0, i), name.slice(i + 1)];
  }
  return [object ?? fallback, name ?? 'default'];
}

function nameOf(type: ArtifactType, body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  return type === 'seed' ? str(body.object) : str(body.name);
}

/** A short description of a JSON value's kind, for messages. */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > 40 ? `a string ("${v.slice(0, 37)}…")` : `a string ("${v}")`;
  return `a ${typeof v}`;
}
