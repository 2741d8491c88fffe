// What the documentation's fragments take as given, for scripts/check-docs: each fragment is
// compiled inside a function after these declarations (never run, so none is made).
import Foundation
import Splice

func given<T>() -> T { fatalError("a fragment's given value is only compiled, never made") }

let asset: Asset = given()
let composition: MutableComposition = given()
let mix: MutableAudioMix = given()
let writer: AssetWriter = given()
let h264: AssetWriterInput = given()
let subtitleGroup: [AssetWriterInput] = given()
let url: URL = given()
let subtitleURL: URL = given()
let assURL: URL = given()
let out: URL = given()
let arguments: [String] = given()
let start: Double = given()
let length: Double = given()
let frame: Int = given()
let luma: [UInt8] = given()
let cb: [UInt8] = given()
let cr: [UInt8] = given()
