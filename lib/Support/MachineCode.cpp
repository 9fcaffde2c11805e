//===- MachineCode.cpp - Cubin resources and the occupancy retry ----------===//

#include "kite/Support/MachineCode.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

using namespace kite::support;

namespace {

template <typename T> bool readAt(std::string_view b, uint64_t at, T &out) {
  if (at > b.size() || b.size() - at < sizeof(T))
    return false;
  std::memcpy(&out, b.data() + at, sizeof(T));
  return true;
}

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, entrySize = 0;
};

std::string_view cString(std::string_view b, uint64_t at) {
  if (at >= b.size())
    return {};
  std::string_view rest = b.substr(at);
  return rest.substr(0, rest.find('\0'));
}

} // namespace

std::map<std::string, FunctionResources>
kite::support::cubinFunctions(std::string_view b) {
  std::map<std::string, FunctionResources> out;
  // ELF64, little-endian (what ptxas and nvJitLink write).
  if (b.size() < 64 ||
      b.substr(0, 4) != "\x7f"
                        "ELF" ||
      b[4] != 2 || b[5] != 1)
    return out;
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (!readAt(b, 0x28, shoff) || !readAt(b, 0x3a, shentsize) ||
      !readAt(b, 0x3c, shnum) || !readAt(b, 0x3e, shstrndx) || shentsize < 64 ||
      shstrndx >= shnum)
    return out;
  std::vector<Section> sections(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t at = shoff + uint64_t(i) * shentsize;
    Section &s = sections[i];
    if (!readAt(b, at, s.name) || !readAt(b, at + 4, s.type) ||
        !readAt(b, at + 24, s.offset) || !readAt(b, at + 32, s.size) ||
        !readAt(b, at + 40, s.link) || !readAt(b, at + 56, s.entrySize))
      return out;
    if (s.type == 8 /*SHT_NOBITS: shared memory, no bytes in the file*/)
      s.size = 0;
    if (s.offset > b.size() || b.size() - s.offset < s.size)
      return out;
  }
  uint64_t names = sections[shstrndx].offset;
  // The symbol table: the attributes name functions by symbol index.
  const Section *symtab = nullptr;
  for (const Section &s : sections)
    if (s.type == 2 /*SHT_SYMTAB*/ && s.link < shnum && s.entrySize >= 24)
      symtab = &s;
  if (!symtab)
    return out;
  auto symbolName = [&](uint32_t index) -> std::string {
    uint32_t name = 0;
    if (uint64_t(index) * symtab->entrySize >= symtab->size ||
        !readAt(b, symtab->offset + uint64_t(index) * symtab->entrySize, name))
      return {};
    return std::string(cString(b, sections[symtab->link].offset + name));
  };
  for (const Section &s : sections) {
    std::string_view name = cString(b, names + s.name);
    if (name.substr(0, 8) != ".nv.info")
      continue;
    // Attributes: format byte, attribute byte, a 16-bit value or size;
    // EIFMT_SVAL (4) entries carry that many bytes: symbol, value.
    for (uint64_t at = s.offset; at + 4 <= s.offset + s.size;) {
      uint8_t format = uint8_t(b[at]), attribute = uint8_t(b[at + 1]);
      uint16_t value = 0;
      readAt(b, at + 2, value);
      at += 4;
      if (format != 4)
        continue;
      uint32_t symbol = 0, amount = 0;
      if (value >= 8 && at + 8 <= s.offset + s.size && readAt(b, at, symbol) &&
          readAt(b, at + 4, amount)) {
        if (attribute == 0x2f) // EIATTR_REGCOUNT
          out[symbolName(symbol)].registers = int(amount);
        else if (attribute == 0x11) // EIATTR_FRAME_SIZE
          out[symbolName(symbol)].stackBytes = int(amount);
      }
      at += value;
    }
  }
  out.erase("");
  return out;
}

std::map<std::string, kite::support::OccupancyHint>
kite::support::occupancyHints(std::string_view ptx) {
  std::map<std::string, OccupancyHint> hints;
  static constexpr std::string_view kLine = "// kite.occupancy_registers ";
  for (size_t at = ptx.find(kLine); at != std::string_view::npos;
       at = ptx.find(kLine, at + 1)) {
    std::string_view line = ptx.substr(at + kLine.size());
    std::istringstream fields{std::string(line.substr(0, line.find('\n')))};
    std::string name;
    OccupancyHint hint;
    if (!(fields >> name >> hint.registers) || hint.registers <= 0)
      continue;
    if (!(fields >> hint.spillBytes) || hint.spillBytes < 0)
      hint.spillBytes = 0;
    hints[name] = hint;
  }
  return hints;
}

std::string kite::support::withMaxRegisters(std::string_view ptx,
                                            std::string_view kernel,
                                            int registers) {
  std::string entry = ".entry " + std::string(kernel) + "(";
  size_t at = ptx.find(entry);
  if (at == std::string_view::npos)
    return {};
  size_t body = ptx.find('{', at);
  size_t maxntid = ptx.find("\n.maxntid ", at);
  if (maxntid == std::string_view::npos || maxntid > body)
    return {};
  size_t end = ptx.find('\n', maxntid + 1);
  if (end == std::string_view::npos)
    return {};
  std::string out(ptx.substr(0, end + 1));
  out += ".maxnreg " + std::to_string(registers) + "\n";
  out += ptx.substr(end + 1);
  return out;
}

PerformanceNotes kite::support::performanceNotes(std::string_view log) {
  PerformanceNotes notes;
  while (!log.empty()) {
    std::string_view line = log.substr(0, log.find('\n'));
    log.remove_prefix(std::min(log.size(), line.size() + 1));
    size_t at = line.find("Potential Performance Loss");
    if (at == std::string_view::npos)
      continue;
    size_t code = line.rfind('(', at);
    line = line.substr(code == std::string_view::npos ? at : code);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.remove_suffix(1);
    notes.emplace_back(line);
  }
  return notes;
}

std::string kite::support::raiseOccupancy(const std::string &ptx,
                                          std::string &cubin,
                                          const CompilePtx &compile,
                                          PerformanceNotes *notes) {
  std::map<std::string, OccupancyHint> hints = occupancyHints(ptx);
  if (hints.empty())
    return "";
  std::map<std::string, FunctionResources> before = cubinFunctions(cubin);
  std::string limited = ptx, note;
  std::vector<std::string> changed;
  for (const auto &[kernel, hint] : hints) {
    auto it = before.find(kernel);
    if (it == before.end() || it->second.registers <= hint.registers)
      continue;
    std::string next = withMaxRegisters(limited, kernel, hint.registers);
    if (next.empty())
      continue;
    limited = std::move(next);
    changed.push_back(kernel);
  }
  if (changed.empty())
    return "";
  std::string error;
  PerformanceNotes secondNotes;
  std::optional<std::string> second = compile(limited, error, secondNotes);
  if (!second)
    return "occupancy: the compile under the register limit failed (" + error +
           "); kept the first";
  if (!secondNotes.empty()) {
    std::string said;
    for (const std::string &n : secondNotes)
      said += (said.empty() ? "" : "; ") + n;
    return "occupancy: under the register limit ptxas says " + said +
           "; kept the first";
  }
  std::map<std::string, FunctionResources> after = cubinFunctions(*second);
  for (const std::string &kernel : changed) {
    auto it = after.find(kernel);
    const FunctionResources &old = before[kernel];
    if (it == after.end() ||
        it->second.stackBytes > old.stackBytes + hints[kernel].spillBytes)
      return "occupancy: " + kernel + " spills " +
             (it == after.end() ? std::string("?")
                                : std::to_string(it->second.stackBytes)) +
             " bytes under " + std::to_string(hints[kernel].registers) +
             " registers; kept " + std::to_string(old.registers);
    note += (note.empty() ? "occupancy: " : ", ") + kernel + " " +
            std::to_string(old.registers) + " -> " +
            std::to_string(it->second.registers) + " registers";
    if (it->second.stackBytes > old.stackBytes)
      note += " (" + std::to_string(it->second.stackBytes - old.stackBytes) +
              " bytes of spills)";
  }
  cubin = std::move(*second);
  if (notes)
    notes->clear();
  return note + " (two programs an SM)";
}
