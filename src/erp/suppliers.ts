// Known suppliers, the master data posting checks a Supplier Intake against ("unknown supplier"),
// from ERP_SUPPLIERS_FILE. Readable as /api/resource/Supplier.

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
