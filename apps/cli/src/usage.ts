/** Usage text of every command, kept apart from the commands so `bvl --help` loads nothing else. */
export const VERIFY_USAGE = `usage: bvl verify <stack.json | folder> [--drafts <stack.json | folder>] [--format pretty|json|sarif] [--layers graph,render]`;

/** Usage text of `bvl publish`. */
export const PUBLISH_USAGE =
  'usage: bvl publish <stack.json | folder> [--drafts <stack.json | folder>] [--format pretty|json|sarif] [--tenant t] [--package p] [--allow-data-change]';
