extension QuerySchema {
    /// `objects`: `data` holds every field of an object of a class other than `_Installation` except `objectId`,
    /// `createdAt` and `updatedAt`, which live only in their columns — exactly the shape of `installations`, so
    /// the same compiled conditions serve both (the caller adds the `app_id` and `class_name` conditions).
    /// Only the columns are shared: the installations' field types are not a class's, whose own come from
    /// `declaring(_:)`.
    public static let objects = QuerySchema(
        dataColumn: installations.dataColumn, columns: installations.columns,
        tiebreakColumn: installations.tiebreakColumn)
}
