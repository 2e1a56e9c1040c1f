-- Geo operators of the where language ($nearSphere, $centerSphere, $box, $polygon; SPEC §12.1) are compiled to
-- PostGIS predicates (docs/decisions.md, "Geo engine: PostGIS"). PostGIS is not part of PostgreSQL: a server
-- without the package must fail here, saying what to install, rather than on the first geo query.
DO $$
DECLARE
    package text := 'postgresql-' || (current_setting('server_version_num')::int / 10000) || '-postgis-3';
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis') THEN
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'postgis') THEN
        RAISE EXCEPTION 'PostGIS is not installed on the PostgreSQL server: install the Debian package % '
            '(apt-get install %; scripts/run and scripts/test do it), then run pushledger migrate again',
            package, package;
    END IF;
    BEGIN
        CREATE EXTENSION postgis;
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'creating the postgis extension needs a superuser: run CREATE EXTENSION postgis; as one in '
            'database %, then pushledger migrate again', current_database();
    END;
END
$$;

-- A stored GeoPoint ({"__type":"GeoPoint","latitude":…,"longitude":…}) as PostGIS values, NULL for anything
-- else. Nested CASEs (whose order PostgreSQL keeps, unlike AND's) so that a malformed or out-of-range value
-- never raises and aborts a query for every row. IMMUTABLE, so that they serve expression indexes:
-- `USING gist (pl_geography(data -> 'loc'))` for distances, `USING gist (pl_geometry(data -> 'loc'))` for
-- $box and $polygon, which are planar in longitude/latitude degrees (docs/decisions.md, "Geo engine").
CREATE FUNCTION pl_geometry(p jsonb) RETURNS geometry
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE WHEN jsonb_typeof(p) = 'object' AND p ->> '__type' = 'GeoPoint'
        AND jsonb_typeof(p -> 'latitude') = 'number' AND jsonb_typeof(p -> 'longitude') = 'number'
    THEN CASE WHEN (p ->> 'latitude')::float8 BETWEEN -90 AND 90 AND (p ->> 'longitude')::float8 BETWEEN -180 AND 180
        THEN ST_SetSRID(ST_MakePoint((p ->> 'longitude')::float8, (p ->> 'latitude')::float8), 4326) END END;

CREATE FUNCTION pl_geography(p jsonb) RETURNS geography
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pl_geometry(p)::geography;
