import Testing
@testable import WebImageServer

@Suite("The filter table")
struct FilterTableTests {
    @Test("every filter thumbor 7.8 ships has a row", arguments: FilterTable.thumborFilterNames)
    func thumborFilterHasRow(name: String) {
        #expect(FilterTable.row(named: name) != nil)
    }

    @Test("no two rows share a name")
    func namesAreUnique() {
        let names = FilterTable.rows.map(\.name)
        #expect(Set(names).count == names.count)
    }

    @Test("a row's required arguments are a prefix of its grammar")
    func requiredArgumentsFit() {
        for row in FilterTable.rows {
            #expect((0...row.arguments.count).contains(row.requiredArguments), "\(row.name)")
        }
    }

    @Test("the help text and the README's table name every row, with its usage")
    func generatedTextsNameEveryRow() {
        for row in FilterTable.rows {
            #expect(FilterTable.helpText.contains(row.usage), "\(row.name)")
            #expect(FilterTable.markdownTable.contains("`\(FilterTable.cell(row.usage))`"), "\(row.name)")
        }
    }

    @Test("usage spells optional arguments in brackets")
    func usageSpelling() throws {
        #expect(try #require(FilterTable.row(named: "blur")).usage == "blur(x[,x])")
        #expect(try #require(FilterTable.row(named: "grayscale")).usage == "grayscale()")
    }
}
