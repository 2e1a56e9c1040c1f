import Foundation

/// The geo operators of SPEC §12.1, compiled to PostGIS over the stored GeoPoint (`pl_geography` and
/// `pl_geometry` of migration 0010, NULL for anything that is not a valid GeoPoint). The predicates and
/// the radius of the sphere are the ones `scripts/bench-geo` checked against an exact haversine
/// (docs/decisions.md, "Geo engine: PostGIS").
extension WhereCompiler {
    /// PostGIS's sphere (`use_spheroid = false`) has the WGS84 mean radius: a central angle θ is θ times it.
    static let sphereRadiusMetres = 6_371_008.771415
    static let milesPerRadian = 3958.8
    static let kilometresPerRadian = 6371.0

    /// The operators read together with `$nearSphere`.
    static let nearSphereCompanions: Set<String> = [
        "$maxDistance", "$maxDistanceInRadians", "$maxDistanceInMiles", "$maxDistanceInKilometers", "$minDistance",
    ]

    /// `{"$nearSphere": point, "$maxDistance…": r, "$minDistance": r0}` on one field.
    func nearSphere(_ fields: [String: JSON], _ target: FieldTarget, field: String) throws(QueryError) -> BoundSQL {
        let center = try Self.geoPoint(fields["$nearSphere"]!, op: "$nearSphere", field: field)
        let geography = try Self.geography(target, field: field)
        var conditions: [BoundSQL] = []
        let limits: [(String, Double)] = [
            ("$maxDistance", 1), ("$maxDistanceInRadians", 1), ("$maxDistanceInMiles", Self.milesPerRadian),
            ("$maxDistanceInKilometers", Self.kilometresPerRadian),
        ]
        for (key, unitsPerRadian) in limits {
            guard let value = fields[key] else { continue }
            let radians = try Self.distance(value, op: key, field: field) / unitsPerRadian
            conditions.append(Self.within(geography, center, radians: radians))
        }
        if let value = fields["$minDistance"] {
            let radians = try Self.distance(value, op: "$minDistance", field: field)
            var far = BoundSQL(sql: "ST_Distance(") + geography + BoundSQL(sql: ", ") + Self.point(center)
            far.append(sql: "::geography, false) >= ")
            far.append(bind: String(radians * Self.sphereRadiusMetres))
            far.append(sql: "::float8")
            conditions.append(far)
        }
        // Without a bound every stored GeoPoint matches (the order by distance is the listing's business).
        return WhereCompiler.combine(
            conditions.isEmpty ? [geography + BoundSQL(sql: " IS NOT NULL")] : conditions, with: "AND", empty: "TRUE")
    }

    /// `$within: {$box: [southwest, northeast]}`, inclusive, planar in degrees; a box whose west edge is east
    /// of its east edge crosses the antimeridian.
    func within(_ operand: JSON, _ target: FieldTarget, field: String) throws(QueryError) -> BoundSQL {
        guard let box = operand["$box"]?.arrayValue, operand.objectValue?.count == 1, box.count == 2 else {
            throw Self.malformed("$within expects {\"$box\": [southwest GeoPoint, northeast GeoPoint]}", field)
        }
        let sw = try Self.geoPoint(box[0], op: "$box", field: field)
        let ne = try Self.geoPoint(box[1], op: "$box", field: field)
        guard sw.latitude <= ne.latitude else {
            throw Self.malformed("$box's southwest corner must not be north of its northeast corner", field)
        }
        let geometry = try Self.geometry(target, field: field)
        func envelope(_ west: Double, _ east: Double) -> BoundSQL {
            var sql = geometry + BoundSQL(sql: " && ST_MakeEnvelope(")
            for (i, v) in [west, sw.latitude, east, ne.latitude].enumerated() {
                if i > 0 { sql.append(sql: ", ") }
                sql.append(bind: String(v))
                sql.append(sql: "::float8")
            }
            sql.append(sql: ", 4326)")
            return sql
        }
        if sw.longitude <= ne.longitude { return envelope(sw.longitude, ne.longitude) }
        return WhereCompiler.combine(
            [envelope(sw.longitude, 180), envelope(-180, ne.longitude)], with: "OR", empty: "FALSE")
    }

    /// `$geoWithin: {$polygon: [...]}` (planar in degrees, boundary included) or
    /// `{$centerSphere: [[lng, lat], radians]}` (on the sphere).
    func geoWithin(_ operand: JSON, _ target: FieldTarget, field: String) throws(QueryError) -> BoundSQL {
        guard let shape = operand.objectValue, shape.count == 1 else {
            throw Self.malformed(
                "$geoWithin expects {\"$polygon\": [...]} or {\"$centerSphere\": [[lng, lat], r]}", field)
        }
        if let sphere = shape["$centerSphere"] {
            guard let parts = sphere.arrayValue, parts.count == 2, let pair = parts[0].arrayValue else {
                throw Self.malformed("$centerSphere expects [[longitude, latitude], radians]", field)
            }
            let center = try Self.lngLat(pair, field: field)
            let radians = try Self.distance(parts[1], op: "$centerSphere", field: field)
            return Self.within(try Self.geography(target, field: field), center, radians: radians)
        }
        guard let vertices = shape["$polygon"]?.arrayValue else {
            throw Self.malformed("$geoWithin expects $polygon or $centerSphere", field)
        }
        guard vertices.count >= 3 else { throw Self.malformed("$polygon needs at least 3 points", field) }
        var points: [Point] = []
        for vertex in vertices {
            if let pair = vertex.arrayValue {
                points.append(try Self.lngLat(pair, field: field))
            } else {
                points.append(try Self.geoPoint(vertex, op: "$polygon", field: field))
            }
        }
        points.append(points[0])  // closes the ring
        var line = BoundSQL(sql: "ST_Covers(ST_SetSRID(ST_MakePolygon(ST_MakeLine(ARRAY[")
        for (i, point) in points.enumerated() {
            if i > 0 { line.append(sql: ", ") }
            line.append(Self.point(point))
        }
        line.append(sql: "])), 4326), ")
        return line + (try Self.geometry(target, field: field)) + BoundSQL(sql: ")")
    }

    /// `ORDER BY` for the first top-level field with `$nearSphere`: spherical distance from its point,
    /// nearest first (index-assisted by `<->`); nil when the query has none.
    public func distanceOrder(_ where: JSON) throws(QueryError) -> BoundSQL? {
        guard case .object(let fields) = `where` else { return nil }
        for key in fields.keys.sorted() where !key.hasPrefix("$") {
            guard let near = fields[key]?["$nearSphere"] else { continue }
            let center = try Self.geoPoint(near, op: "$nearSphere", field: key)
            let geography = try Self.geography(try target(for: try FieldPath(key)), field: key)
            return geography + BoundSQL(sql: " <-> ") + Self.point(center) + BoundSQL(sql: "::geography ASC")
        }
        return nil
    }

    struct Point {
        let latitude: Double
        let longitude: Double
    }

    /// `ST_DWithin` on the sphere: exactly "central angle ≤ θ", inclusive.
    static func within(_ geography: BoundSQL, _ center: Point, radians: Double) -> BoundSQL {
        var sql = BoundSQL(sql: "ST_DWithin(") + geography + BoundSQL(sql: ", ") + point(center)
        sql.append(sql: "::geography, ")
        sql.append(bind: String(radians * sphereRadiusMetres))
        sql.append(sql: "::float8, false)")
        return sql
    }

    static func point(_ p: Point) -> BoundSQL {
        var sql = BoundSQL(sql: "ST_SetSRID(ST_MakePoint(")
        sql.append(bind: String(p.longitude))
        sql.append(sql: "::float8, ")
        sql.append(bind: String(p.latitude))
        sql.append(sql: "::float8), 4326)")
        return sql
    }

    static func geography(_ target: FieldTarget, field: String) throws(QueryError) -> BoundSQL {
        guard case .json(let expression) = target else { throw notGeo(field) }
        return BoundSQL(sql: "pl_geography(") + expression + BoundSQL(sql: ")")
    }

    static func geometry(_ target: FieldTarget, field: String) throws(QueryError) -> BoundSQL {
        guard case .json(let expression) = target else { throw notGeo(field) }
        return BoundSQL(sql: "pl_geometry(") + expression + BoundSQL(sql: ")")
    }

    static func notGeo(_ field: String) -> QueryError {
        .invalidQuery("field '\(field)' cannot hold a GeoPoint")
    }

    /// A malformed geo operand: LeanCloud's code 107 (SPEC §12.1).
    static func malformed(_ message: String, _ field: String) -> QueryError {
        QueryError(code: 107, message: "\(message) (field '\(field)')")
    }

    /// A `{"__type":"GeoPoint",…}` operand; coordinates out of range are code 111 (SPEC §12.1).
    static func geoPoint(_ value: JSON, op: String, field: String) throws(QueryError) -> Point {
        guard value["__type"]?.stringValue == "GeoPoint", let lat = value["latitude"]?.doubleValue,
            let lng = value["longitude"]?.doubleValue
        else {
            throw malformed("\(op) expects a GeoPoint {\"__type\":\"GeoPoint\",\"latitude\",\"longitude\"}", field)
        }
        return try checked(latitude: lat, longitude: lng)
    }

    static func lngLat(_ pair: [JSON], field: String) throws(QueryError) -> Point {
        guard pair.count == 2, let lng = pair[0].doubleValue, let lat = pair[1].doubleValue else {
            throw malformed("a point given as an array must be [longitude, latitude]", field)
        }
        return try checked(latitude: lat, longitude: lng)
    }

    static func checked(latitude: Double, longitude: Double) throws(QueryError) -> Point {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw QueryError(code: 111, message: "This is not a valid GeoPoint")
        }
        return Point(latitude: latitude, longitude: longitude)
    }

    static func distance(_ value: JSON, op: String, field: String) throws(QueryError) -> Double {
        guard let d = value.doubleValue, d.isFinite, d >= 0 else {
            throw malformed("\(op) expects a non-negative number", field)
        }
        return d
    }
}

/// What `explain` shows for a `$nearSphere` condition: how far the stored point is, in the unit of the bound.
public struct NearSphereReading: Sendable {
    /// The distance from the centre in `unit` (NULL when the field holds no GeoPoint).
    public let distance: BoundSQL
    /// `mi`, `km` or `rad`.
    public let unit: String
    /// Each bound in `unit`: `("≤", 1.0)` for `$maxDistanceInMiles: 1`, `("≥", r)` for `$minDistance`; empty
    /// without any.
    public let bounds: [(comparison: String, limit: Double)]
}

extension WhereCompiler {
    /// The reading for `field: {"$nearSphere": …, "$maxDistance…": …}`, nil when the condition has no `$nearSphere`.
    public func nearSphereReading(field: String, _ condition: JSON) throws(QueryError) -> NearSphereReading? {
        guard let fields = condition.objectValue, let near = fields["$nearSphere"] else { return nil }
        let center = try Self.geoPoint(near, op: "$nearSphere", field: field)
        let geography = try Self.geography(try target(for: try FieldPath(field)), field: field)
        // The unit of the first bound given; radians (LeanCloud's own unit) when there is none.
        let units: [(String, String, Double)] = [
            ("$maxDistanceInMiles", "mi", Self.milesPerRadian),
            ("$maxDistanceInKilometers", "km", Self.kilometresPerRadian),
            ("$maxDistanceInRadians", "rad", 1), ("$maxDistance", "rad", 1),
        ]
        let (unit, perRadian) = units.first { fields[$0.0] != nil }.map { ($0.1, $0.2) } ?? ("rad", 1)
        var bounds: [(String, Double)] = []
        for (key, _, keyPerRadian) in units {
            guard let value = fields[key] else { continue }
            bounds.append(("≤", try Self.distance(value, op: key, field: field) / keyPerRadian * perRadian))
        }
        if let value = fields["$minDistance"] {
            bounds.append(("≥", try Self.distance(value, op: "$minDistance", field: field) * perRadian))
        }
        var distance = BoundSQL(sql: "ST_Distance(") + geography + BoundSQL(sql: ", ") + Self.point(center)
        distance.append(sql: "::geography, false) / ")
        distance.append(bind: String(Self.sphereRadiusMetres / perRadian))
        distance.append(sql: "::float8")
        return NearSphereReading(distance: distance, unit: unit, bounds: bounds)
    }
}
