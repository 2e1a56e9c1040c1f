import PushCore
import Testing

/// `order` and `keys` parameters.
struct WhereCompilerOrderTests {
    let compiler = WhereCompiler(schema: .installations)

    @Test func orderListsFieldsThenTheObjectIdTiebreak() throws {
        let r = try compiler.compileOrder("-updatedAt, badge,-profile.city").render()
        #expect(
            r.sql == "updated_at DESC, (data -> $1::text) ASC NULLS FIRST, "
                + "(data -> $2::text -> $3::text) DESC NULLS LAST, object_id ASC")
        #expect(r.binds == ["badge", "profile", "city"])
    }

    @Test func emptyOrderIsJustTheTiebreak() throws {
        #expect(try compiler.compileOrder("").render().sql == "object_id ASC")
        #expect(try compiler.compileOrder(" , ").render().sql == "object_id ASC")
    }

    @Test func explicitObjectIdOrderIsNotRepeated() throws {
        #expect(try compiler.compileOrder("-objectId").render().sql == "object_id DESC")
        #expect(try compiler.compileOrder("createdAt,-createdAt").render().sql == "created_at ASC, object_id ASC")
    }

    @Test func badOrderFieldsAreRefused() {
        #expect(throws: QueryError.invalidQuery("invalid field name ''")) { try compiler.compileOrder("-") }
        #expect(throws: QueryError.invalidQuery("invalid field name 'a;b'")) { try compiler.compileOrder("a;b") }
        #expect(throws: QueryError.invalidQuery("field 'createdAt' has no subfields")) {
            try compiler.compileOrder("createdAt.x")
        }
    }

    @Test func keysAreSplitTrimmedAndValidated() throws {
        #expect(
            try compiler.validateKeys("deviceType, channels,,profile.city")
                == ["deviceType", "channels", "profile.city"])
        #expect(try compiler.validateKeys("") == [])
        #expect(throws: QueryError.generic("invalid key 'a b' in keys")) { try compiler.validateKeys("x,a b") }
    }
}
