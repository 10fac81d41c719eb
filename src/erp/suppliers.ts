// Known suppliers, the master data posting checks a Supplier Intake against ("unknown supplier"),
// from ERP_SUPPLIERS_FILE, re-read when the file changes. Readable as /api/resource/Supplier.

import { readFileSync, statSync } from 'node:fs';

export interface Supplier {
  /** The Supplier's name (Frappe's document name), matched case-insensitively against vendor.name. */
  name: string;
  supplier_name: string;
  /** When set, an intake in another currency is a posting error. */
  default_currency?: string;
  tax_id?: string;
}

/** Parses {"suppliers": [...]}; a string says what is wrong. */
export function parseSuppliers(value: unknown): Supplier[] | string {
  const list = (value as { suppliers?: unknown } | null)?.suppliers;
  if (!Array.isArray(list)) return 'must hold {"suppliers": [...]}';
  const out: Supplier[] = [];
  for (const [index, entry] of list.entries()) {
    const e = entry as Record<string, unknown> | null;
    if (typeof e?.['name'] !== 'string' || e['name'].trim() === '') return `supplier ${index + 1} has no "name"`;
    const currency = e['default_currency'];
    if (currency !== undefined && (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))) return `supplier "${e['name']}" has a default_currency that is not an ISO 4217 code`;
    out.push({
      name: e['name'],
      supplier_name: typeof e['supplier_name'] === 'string' ? e['supplier_name'] : e['name'],
      ...(typeof currency === 'string' && { default_currency: currency }),
      ...(typeof e['tax_id'] === 'string' && { tax_id: e['tax_id'] }),
    });
  }
  return out;
}

/** The supplier a vendor name or tax id refers to, if known. */
export function findSupplier(suppliers: readonly Supplier[], vendor: { name: string; tax_id?: string }): Supplier | undefined {
  const wanted = vendor.name.trim().toLowerCase();
  return (
    suppliers.find((s) => s.name.toLowerCase() === wanted || s.supplier_name.toLowerCase() === wanted) ??
    (vendor.tax_id === undefined ? undefined : suppliers.find((s) => s.tax_id !== undefined && s.tax_id === vendor.tax_id))
  );
}

/** The supplier master as it is now: ERP_SUPPLIERS_FILE is re-read whenever it changed on disk. */
export interface SupplierMaster {
  current(): readonly Supplier[];
}

/**
 * Serves `initial` (read at start, where a broken file refuses the start) and re-reads `path` when
 * its modification time, size or inode changed, so an operator who adds a supplier needs no
 * restart. A file that became unreadable or invalid keeps the last good list and logs why, once
 * per change of the file.
 */
export function watchSuppliers(path: string | undefined, initial: readonly Supplier[], onProblem: (detail: string) => void): SupplierMaster {
  if (path === undefined) return { current: () => initial };
  let suppliers = initial;
  let seen = fileStamp(path);
  return {
    current() {
      const stamp = fileStamp(path);
      if (stamp === seen) return suppliers;
      seen = stamp;
      const read = readSuppliersFile(path);
      if (typeof read === 'string') onProblem(`ERP_SUPPLIERS_FILE "${path}" ${read}: keeping the ${suppliers.length} suppliers read before`);
      else suppliers = read;
      return suppliers;
    },
  };
}

function fileStamp(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  } catch (error) {
    return `missing:${(error as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}

/** Reads and parses a suppliers file; a string says what is wrong. */
export function readSuppliersFile(path: string): Supplier[] | string {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return `cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'not JSON'}`;
  }
  return parseSuppliers(value);
}
