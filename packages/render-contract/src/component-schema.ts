/** A field as a component sees it: looked up on the view's object (resolveField), or marked missing. */
export interface ResolvedField {
  readonly name: string;
  readonly label: string;
  /** The field type, or `unknown` when the object has no such field (L1 reports that). */
  readonly type: string;
  readonly exists: boolean;
  readonly system?: boolean;
  readonly required?: boolean;
  readonly multiple?: boolean;
  readonly reference?: string;
  readonly options?: ReadonlyArray<{ readonly label: string; readonly value: string }>;
}

/**
 * What a renderer receives for one view or widget: a component type and its props. `type` is
 * absent when the translation has no component for the artifact — a real renderer draws the red
 * "Unknown component type" box for it.
 */
export interface ComponentSchema {
  readonly type?: string;
  /** The artifact (view name, or `<dashboard>.<widget id>`), for data attributes and messages. */
  readonly id: string;
  readonly props: Readonly<Record<string, unknown>>;
}
