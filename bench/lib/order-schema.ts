// The bench's JSON Schema workload: a purchase order of ~40 fields with arrays, patterns, enums,
// $refs, oneOf, if/then and unevaluatedProperties, one valid body and one broken in six places.
// The schema scenario and the comparison with ajv (schema-vs-ajv) both read it from here.

export const ORDER_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://airlock.invalid/schemas/purchase-order.json',
  type: 'object',
  required: ['orderId', 'createdAt', 'currency', 'customer', 'shipping', 'lines', 'payment'],
  properties: {
    orderId: { type: 'string', pattern: '^PO-[0-9]{4}-[0-9]{6}$' },
    createdAt: { type: 'string', format: 'date-time' },
    status: { enum: ['draft', 'submitted', 'approved', 'rejected'] },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    priority: { type: 'integer', minimum: 1, maximum: 5 },
    customer: { $ref: '#/$defs/party' },
    billTo: { $ref: '#/$defs/address' },
    shipping: {
      type: 'object',
      required: ['method', 'address'],
      properties: {
        method: { enum: ['ground', 'air', 'sea', 'pickup'] },
        address: { $ref: '#/$defs/address' },
        requestedDate: { type: 'string', format: 'date' },
        instructions: { type: 'string', maxLength: 500 },
      },
      unevaluatedProperties: false,
    },
    lines: { type: 'array', minItems: 1, maxItems: 200, items: { $ref: '#/$defs/line' } },
    payment: { oneOf: [{ $ref: '#/$defs/cardPayment' }, { $ref: '#/$defs/invoicePayment' }] },
    tags: { type: 'array', maxItems: 10, uniqueItems: true, items: { type: 'string', pattern: '^[a-z0-9-]{1,32}$' } },
    metadata: { type: 'object', maxProperties: 20, additionalProperties: { type: 'string', maxLength: 200 } },
    notes: { type: 'string', maxLength: 2000 },
  },
  unevaluatedProperties: false,
  $defs: {
    address: {
      type: 'object',
      required: ['line1', 'city', 'country'],
      properties: {
        line1: { type: 'string', minLength: 1, maxLength: 100 },
        line2: { type: 'string', maxLength: 100 },
        city: { type: 'string', minLength: 1, maxLength: 60 },
        region: { type: 'string', maxLength: 60 },
        postalCode: { type: 'string', pattern: '^[A-Z0-9 -]{3,10}$' },
        country: { type: 'string', pattern: '^[A-Z]{2}$' },
      },
      additionalProperties: false,
    },
    party: {
      type: 'object',
      required: ['id', 'kind', 'name', 'email'],
      properties: {
        id: { type: 'string', pattern: '^C-[0-9]{8}$' },
        kind: { enum: ['person', 'business'] },
        name: { type: 'string', minLength: 1, maxLength: 200 },
        email: { type: 'string', format: 'email', maxLength: 254 },
        phone: { type: 'string', pattern: '^\\+[0-9]{7,15}$' },
        vatNumber: { type: 'string', pattern: '^[A-Z]{2}[0-9A-Z]{8,12}$' },
      },
      if: { properties: { kind: { const: 'business' } } },
      then: { required: ['vatNumber'] },
      unevaluatedProperties: false,
    },
    line: {
      type: 'object',
      required: ['sku', 'quantity', 'unitPrice'],
      properties: {
        sku: { type: 'string', pattern: '^[A-Z0-9]{3,12}$' },
        description: { type: 'string', maxLength: 200 },
        quantity: { type: 'integer', minimum: 1, maximum: 10000 },
        unitPrice: { $ref: '#/$defs/money' },
        discountPercent: { type: 'number', minimum: 0, maximum: 100 },
        taxCode: { enum: ['standard', 'reduced', 'zero', 'exempt'] },
      },
      additionalProperties: false,
    },
    money: { type: 'number', minimum: 0, multipleOf: 0.01 },
    cardPayment: {
      type: 'object',
      required: ['method', 'token'],
      properties: { method: { const: 'card' }, token: { type: 'string', pattern: '^tok_[A-Za-z0-9]{16,32}$' } },
    },
    invoicePayment: {
      type: 'object',
      required: ['method', 'termsDays'],
      properties: { method: { const: 'invoice' }, termsDays: { enum: [14, 30, 60] }, reference: { type: 'string', maxLength: 35 } },
    },
  },
};

const ADDRESS = { line1: 'Harbour Road 12', line2: 'Unit 4', city: 'Rotterdam', region: 'ZH', postalCode: '3011 AB', country: 'NL' };
export const VALID_BODY = {
  orderId: 'PO-2026-004217',
  createdAt: '2026-03-02T09:15:00Z',
  status: 'submitted',
  currency: 'EUR',
  priority: 2,
  customer: { id: 'C-00012345', kind: 'business', name: 'Nordlicht Logistics BV', email: 'orders@nordlicht.example', phone: '+31101234567', vatNumber: 'NL123456789B01' },
  billTo: ADDRESS,
  shipping: { method: 'sea', address: { ...ADDRESS, line2: undefined }, requestedDate: '2026-03-20', instructions: 'Dock 3, before noon' },
  lines: [
    { sku: 'PALLET120', description: 'Euro pallet', quantity: 40, unitPrice: 12.5, taxCode: 'standard' },
    { sku: 'WRAP500', quantity: 12, unitPrice: 3.99, discountPercent: 5, taxCode: 'standard' },
    { sku: 'LABEL01', description: 'Shipping labels, roll', quantity: 3, unitPrice: 18, taxCode: 'reduced' },
  ],
  payment: { method: 'invoice', termsDays: 30, reference: 'Q1-2026-0042' },
  tags: ['priority', 'sea-freight', 'q1'],
  metadata: { source: 'edi', batch: '2026-03-02-a' },
  notes: 'Consolidate with PO-2026-004190 if possible',
};

/** The valid body broken in six places: pattern, required, enum, multipleOf, extra property, uniqueItems. */
export const INVALID_BODY = {
  ...VALID_BODY,
  orderId: 'PO-26-4217',
  customer: { ...VALID_BODY.customer, vatNumber: undefined },
  shipping: { ...VALID_BODY.shipping, method: 'rail' },
  lines: [VALID_BODY.lines[0], { ...VALID_BODY.lines[1], unitPrice: 3.999 }, VALID_BODY.lines[2]],
  couponCode: 'SPRING',
  tags: ['q1', 'q1'],
};
