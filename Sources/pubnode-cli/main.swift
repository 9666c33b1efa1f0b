import Foundation
import PubNodeCLI

// `pubnode-cli`: parses the arguments, runs the command and exits with its status
// (0 success, 1 server or network error, 2 usage error).
exit(await PubNodeCLIRunner.run(Array(CommandLine.arguments.dropFirst())))
