import Foundation
import Splice

let status = CommandLine.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
