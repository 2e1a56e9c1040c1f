-- Objects of classes other than _Installation (issue 16): _User and every custom class, one table keyed by
-- class. A projection of the object:<className>:<objectId> streams, rebuilt like installations. `data` holds
-- every field but objectId/createdAt/updatedAt, so the where compiler reads it exactly as it reads
-- installations.data.
CREATE TABLE objects (
    app_id text NOT NULL,
    class_name text NOT NULL,
    object_id text NOT NULL,
    data jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    version integer NOT NULL,
    PRIMARY KEY (app_id, class_name, object_id)
);
-- Containment (@>) is what equality, $in on scalars and Pointer matches compile to.
CREATE INDEX objects_data ON objects USING gin (data jsonb_path_ops);
CREATE INDEX objects_updated ON objects (app_id, class_name, updated_at);

-- The type each field of a class took with its first value (FieldType's names: String, Number, Boolean, Array,
-- Object, Pointer<Class>, GeoPoint, Date, Bytes). Written by the same projection from the events' "types".
CREATE TABLE class_fields (
    app_id text NOT NULL,
    class_name text NOT NULL,
    field text NOT NULL,
    type text NOT NULL,
    PRIMARY KEY (app_id, class_name, field)
);
