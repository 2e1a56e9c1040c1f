extension QuerySchema {
    /// `installations`: `data` holds every field of the `_Installation` object except `objectId`, `createdAt` and
    /// `updatedAt`, which live only in their columns. Columns such as `device_type` or `valid` duplicate `data` for
    /// the delivery code; queries read `data` for them, because only there do arrays, missing fields and JSON types
    /// behave as LeanCloud's query language expects.
    public static let installations = QuerySchema(
        dataColumn: "data",
        columns: [
            "objectId": Column("object_id", .text),
            "createdAt": Column("created_at", .timestamptz),
            "updatedAt": Column("updated_at", .timestamptz),
        ],
        tiebreakColumn: "object_id",
        declaredTypes: InstallationFields.declaredTypes
    )
}
