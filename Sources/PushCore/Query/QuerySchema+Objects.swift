extension QuerySchema {
    /// `objects`: `data` holds every field of an object of a class other than `_Installation` except `objectId`,
    /// `createdAt` and `updatedAt`, which live only in their columns — exactly the shape of `installations`, so
    /// the same compiled conditions serve both (the caller adds the `app_id` and `class_name` conditions).
    public static let objects = installations
}
