// The annotations that unevaluatedProperties and unevaluatedItems read: which members and
// items of the instance at one location other keywords have evaluated. Collected only below a
// schema that holds an unevaluated* keyword; everywhere else the collector is null.

export interface Annotations {
  /** Property names evaluated by patternProperties. */
  props: Set<string> | null;
  /**
   * The name sets of `properties` keywords that applied. Their names absent from the instance
   * are never asked about, so the whole set stands in for the names it matched.
   */
  propSets: ReadonlySet<string>[] | null;
  /** True when additionalProperties or unevaluatedProperties evaluated every property. */
  allProps: boolean;
  /** Items [0, items) are evaluated (prefixItems). */
  items: number;
  /** Indexes evaluated by contains. */
  itemSet: Set<number> | null;
  /** True when items or unevaluatedItems evaluated every item. */
  allItems: boolean;
}

export function createAnnotations(): Annotations {
  return { props: null, propSets: null, allProps: false, items: 0, itemSet: null, allItems: false };
}

export function addProp(ann: Annotations, name: string): void {
  (ann.props ??= new Set()).add(name);
}

export function addPropSet(ann: Annotations, names: ReadonlySet<string>): void {
  (ann.propSets ??= []).push(names);
}

export function addItemIndex(ann: Annotations, index: number): void {
  (ann.itemSet ??= new Set()).add(index);
}

/** Adds what `from` evaluated to `into`. */
export function mergeAnnotations(into: Annotations, from: Annotations): void {
  if (from.props !== null) for (const name of from.props) addProp(into, name);
  if (from.propSets !== null) for (const names of from.propSets) addPropSet(into, names);
  if (from.itemSet !== null) for (const index of from.itemSet) addItemIndex(into, index);
  if (from.allProps) into.allProps = true;
  if (from.allItems) into.allItems = true;
  if (from.items > into.items) into.items = from.items;
}

export function isPropEvaluated(ann: Annotations, name: string): boolean {
  if (ann.allProps || (ann.props !== null && ann.props.has(name))) return true;
  return ann.propSets !== null && ann.propSets.some((names) => names.has(name));
}

export function isItemEvaluated(ann: Annotations, index: number): boolean {
  return ann.allItems || index < ann.items || (ann.itemSet !== null && ann.itemSet.has(index));
}
