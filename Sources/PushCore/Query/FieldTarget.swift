/// Where a queried field is read from: a real typed column, or a jsonb expression (`(data -> $1::text)`, one
/// bound key per dot-path segment) that is SQL NULL when the field is missing.
enum FieldTarget {
    case column(QuerySchema.Column, BoundSQL)
    case json(BoundSQL)
}
