/**
 * A text a file or an item gave (a value, a cell, a column name, a database_type) as a message
 * names it: cut to 60 characters, then "…". Such a text may be megabytes, and an error keeps it
 * in every execution's data.
 */
export const shortened = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);

/** `shortened`, in quotes: how an error quotes a text it was given. */
export const quoted = (text: string) => `"${shortened(text)}"`;

/** A value an item or an expression gave, as JSON (a text in quotes), cut like `shortened`. */
export const asGiven = (value: unknown) => shortened(String(JSON.stringify(value)));
