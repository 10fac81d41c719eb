// workflows.post_supplier_intake: a draft Purchase Invoice (docstatus 0) from a staged Supplier
// Intake, or the posting error state with every reason found. Posting twice answers with the same
// draft; an intake in the error state keeps its answer until `force` re-evaluates it. All money
// checks are exact (bigint minor units).

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { getDocument, insertDocument, updateDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import { formatAmount, parseDecimalAmount, sumAmounts } from '../money.ts';
import { findSupplier } from '../suppliers.ts';
import type { Supplier } from '../suppliers.ts';
import type { SupplierIntakeFields } from '../webhooks/supplier-intake.ts';

export interface PostingAnswer extends Record<string, unknown> {
  status: 'posted' | 'error';
  created: boolean;
}

/** The reasons an intake cannot be posted; empty when it can. */
export function supplierIntakeErrors(intake: SupplierIntakeFields, suppliers: readonly Supplier[]): string[] {
  const errors: string[] = [];
  const currency = intake.currency;
  const supplier = findSupplier(suppliers, { name: intake.vendor.name, ...(intake.vendor.tax_id !== null && { tax_id: intake.vendor.tax_id }) });
  if (!supplier) errors.push(`unknown supplier "${intake.vendor.name}": add it to ERP_SUPPLIERS_FILE (re-read when it changes, no restart) and retry with force=1, or correct vendor.name`);
  else if (supplier.default_currency !== undefined && supplier.default_currency !== currency) errors.push(`currency mismatch: invoice is in ${currency}, supplier "${supplier.name}" bills in ${supplier.default_currency}`);
  if (intake.totals.currency !== null && intake.totals.currency !== currency) errors.push(`currency mismatch: totals are in ${intake.totals.currency}, invoice in ${currency}`);
  intake.items.forEach((item, index) => {
    if (item.currency !== null && item.currency !== currency) errors.push(`currency mismatch: line ${index + 1} is in ${item.currency}, invoice in ${currency}`);
  });
  if (intake.items.length === 0) errors.push('no line items: an invoice needs at least one line');
  const amount = (text: string) => parseDecimalAmount(text, currency, 'amount');
  const lines = sumAmounts(intake.items.map((item) => amount(item.amount)));
  const net = intake.totals.net_total === null ? lines : amount(intake.totals.net_total);
  if (intake.items.length > 0 && net !== lines) errors.push(`totals do not equal the lines: net_total ${formatAmount(net, currency)}, lines sum to ${formatAmount(lines, currency)}`);
  const grand = amount(intake.totals.grand_total);
  const tax = amount(intake.totals.tax_total);
  if (net + tax !== grand) errors.push(`totals do not add up: net ${formatAmount(net, currency)} + tax ${formatAmount(tax, currency)} is not grand_total ${formatAmount(grand, currency)}`);
  if (grand <= 0n) errors.push(`grand_total ${formatAmount(grand, currency)} is not positive`);
  return errors;
}

export function postSupplierIntake(sqlite: DatabaseSync, tx: Transaction, input: { name: string; force: boolean; suppliers: readonly Supplier[]; at: Date; owner: string }): PostingAnswer {
  const intake = getDocument(sqlite, 'Supplier Intake', input.name) ?? frappeThrow(`Supplier Intake ${input.name} not found`, 'DoesNotExistError');
  const base = { supplier_intake: intake.name };
  if (typeof intake['purchase_invoice'] === 'string') return { ...base, status: 'posted', created: false, purchase_invoice: intake['purchase_invoice'], docstatus: 0 };
  if (intake['status'] === 'Posting Error' && !input.force) return { ...base, status: 'error', created: false, errors: intake['posting_errors'] as string[], hint: 'send force=1 to retry' };
  const fields = intake as unknown as SupplierIntakeFields & ErpDocument;
  const errors = supplierIntakeErrors(fields, input.suppliers);
  const attempts = Number(intake['posting_attempts'] ?? 0) + 1;
  if (errors.length > 0) {
    updateDocument(sqlite, tx, intake, { status: 'Posting Error', posting_errors: errors, posting_attempts: attempts }, input.at);
    return { ...base, status: 'error', created: false, errors };
  }
  const supplier = findSupplier(input.suppliers, { name: fields.vendor.name, ...(fields.vendor.tax_id !== null && { tax_id: fields.vendor.tax_id }) })!;
  const currency = fields.currency;
  const lines = fields.items.map((item) => item.amount);
  const net = formatAmount(sumAmounts(lines.map((text) => parseDecimalAmount(text, currency, 'amount'))), currency);
  const invoice = insertDocument(sqlite, tx, {
    doctype: 'Purchase Invoice',
    owner: input.owner,
    at: input.at,
    fields: {
      supplier: supplier.name,
      bill_no: fields.bill_no,
      bill_date: fields.bill_date,
      due_date: fields.due_date,
      currency,
      items: fields.items.map((item, index) => ({ idx: index + 1, item_name: item.description, qty: item.qty, rate: item.rate ?? item.amount, amount: item.amount })),
      net_total: net,
      total_taxes_and_charges: fields.totals.tax_total,
      grand_total: fields.totals.grand_total,
      supplier_intake: intake.name,
      attachments: fields.attachments,
    },
  });
  updateDocument(sqlite, tx, intake, { status: 'Posted', purchase_invoice: invoice.name, posting_errors: [], posting_attempts: attempts }, input.at);
  return { ...base, status: 'posted', created: true, purchase_invoice: invoice.name, docstatus: 0, grand_total: fields.totals.grand_total, currency };
}
