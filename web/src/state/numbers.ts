// Reading numbers typed by a user: whole strings only, no exponents or units.

export function parseInteger(text: string): number | null {
  const trimmed = text.trim();
  return /^[0-9]{1,15}$/.test(trimmed) ? Number(trimmed) : null;
}

export function parseDecimal(text: string): number | null {
  const trimmed = text.trim();
  return /^[0-9]{1,12}(\.[0-9]{1,12})?$/.test(trimmed) ? Number(trimmed) : null;
}
