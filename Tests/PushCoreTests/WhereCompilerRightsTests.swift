import PushCore
import Testing

/// Sub-queries read other classes, so the compiler holds every class they name to the caller's rights (issue
/// 43): `_User` needs the master key whether it is named at the top of a sub-query or several levels down.
struct WhereCompilerRightsTests {
    func compiler(_ rights: QueryRights, schema: QuerySchema = .installations) -> WhereCompiler {
        WhereCompiler(schema: schema, related: RelatedClasses(appId: "a", rights: rights))
    }

    func code(_ query: String, _ rights: QueryRights, schema: QuerySchema = .installations) throws -> Int? {
        let json = try JSON.parse(query)
        do {
            _ = try compiler(rights, schema: schema).compile(json)
            return nil
        } catch {
            return error.code.rawValue
        }
    }

    /// Every way a `where` can reach `_User`: each related operator, named at the first level and two levels
    /// down (inside a sub-query on an ordinary class), and inside `$or`/`$nor`/`$not`.
    static let readsUsers = [
        #"{"owner":{"$inQuery":{"className":"_User","where":{"name":"x"}}}}"#,
        #"{"owner":{"$notInQuery":{"className":"_User","where":{"name":"x"}}}}"#,
        #"{"name":{"$select":{"query":{"className":"_User","where":{"a":1}},"key":"name"}}}"#,
        #"{"name":{"$dontSelect":{"query":{"className":"_User"},"key":"name"}}}"#,
        #"{"team":{"$inQuery":{"className":"Team","where":{"boss":{"$inQuery":{"className":"_User","where":{"a":1}}}}}}}"#,
        #"{"team":{"$inQuery":{"className":"Team","where":{"city":{"$select":{"query":{"className":"_User"},"key":"city"}}}}}}"#,
        #"{"team":{"$notInQuery":{"className":"Team","where":{"boss":{"$notInQuery":{"className":"_User","where":{}}}}}}}"#,
        #"{"team":{"$select":{"query":{"className":"Team","where":{"c":{"$dontSelect":{"query":{"className":"_User"},"key":"c"}}}},"key":"t"}}}"#,
        #"{"$or":[{"a":1},{"owner":{"$inQuery":{"className":"_User","where":{}}}}]}"#,
        #"{"$nor":[{"owner":{"$inQuery":{"className":"_User","where":{}}}}]}"#,
        #"{"name":{"$not":{"$select":{"query":{"className":"_User"},"key":"name"}}}}"#,
    ]

    @Test(
        "the app key is refused with 119 wherever a sub-query names _User; the master key compiles it",
        arguments: readsUsers)
    func userNeedsTheMasterKey(query: String) throws {
        #expect(try code(query, .client) == 119)
        #expect(try code(query, .client, schema: .objects) == 119)
        #expect(try code(query, .master) == nil)
    }

    @Test("the app key may query ordinary classes through sub-queries, at any depth")
    func ordinaryClassesStayOpen() throws {
        for query in [
            #"{"team":{"$inQuery":{"className":"Team","where":{"city":"x"}}}}"#,
            #"{"team":{"$inQuery":{"className":"Team","where":{"lead":{"$inQuery":{"className":"Player","where":{}}}}}}}"#,
            #"{"city":{"$select":{"query":{"className":"Team"},"key":"city"}}}"#,
        ] {
            #expect(try code(query, .client) == nil, "\(query)")
        }
    }

    @Test("the shorthand names no class, so the app key must name it; the master key may use it")
    func shorthandNeedsAClassName() throws {
        for query in [
            #"{"owner":{"$inQuery":{"location":{"$exists":true}}}}"#,
            #"{"owner":{"$notInQuery":{"name":"x"}}}"#,
            #"{"team":{"$inQuery":{"className":"Team","where":{"boss":{"$inQuery":{"name":"x"}}}}}}"#,
        ] {
            #expect(try code(query, .client) == 119, "\(query)")
            #expect(try code(query, .master) == nil, "\(query)")
        }
    }

    @Test("a refusal names the class, and maps to LeanCloud's 119 with HTTP 403")
    func refusalIsAForbiddenLeanError() throws {
        let json = try JSON.parse(Self.readsUsers[0])
        do {
            _ = try compiler(.client).compile(json)
            Issue.record("compiled")
        } catch {
            #expect(error.message.contains("_User"))
            #expect(error.leanError == LeanError.forbidden(error.message))
            #expect(error.leanError.kind == .forbidden)
        }
    }

    /// Issue 43 item 6: `$inQuery` on a field whose type is known and is not a Pointer is refused with 102
    /// whatever the operand (the shorthand, a full one, one naming a missing class), never compiled into a
    /// condition that silently matches nothing.
    @Test(
        "$inQuery/$notInQuery on a field declared as something else is always 102",
        arguments: ["deviceToken", "installationId", "registrationId", "channels", "badge", "valid", "deviceType"])
    func nonPointerFieldsAreRefused(field: String) throws {
        for operand in [
            #"{}"#, #"{"a":1}"#, #"{"className":"Team","where":{}}"#, #"{"className":"_User","where":{}}"#,
            #"{"className":"NoSuchClass"}"#,
        ] {
            for op in ["$inQuery", "$notInQuery"] {
                let query = #"{"\#(field)":{"\#(op)":\#(operand)}}"#
                #expect(try code(query, .master) == 102, "\(query)")
                #expect(try code(query, .client) == 102, "\(query)")
            }
        }
    }

    @Test("a class field inferred as a String is not a Pointer either; one inferred as a Pointer is")
    func inferredTypesDecide() throws {
        let schema = QuerySchema.objects.declaring(["city": .string, "boss": .pointer(className: "_User")])
        #expect(try code(#"{"city":{"$inQuery":{"className":"Team","where":{}}}}"#, .master, schema: schema) == 102)
        #expect(try code(#"{"boss":{"$inQuery":{"className":"_User","where":{}}}}"#, .master, schema: schema) == nil)
        #expect(try code(#"{"boss":{"$inQuery":{"className":"_User","where":{}}}}"#, .client, schema: schema) == 119)
        // A custom field of unknown type may hold a Pointer.
        #expect(try code(#"{"owner":{"$inQuery":{"className":"Team","where":{}}}}"#, .master) == nil)
    }
}
