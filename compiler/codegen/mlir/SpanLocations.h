//===- SpanLocations.h - Kina spans as MLIR locations ------------*- C++ -*-===//
//
// Line info (issue 17): every MLIR op built while one tile-IR op is lowered
// gets that op's source position as a FileLineColLoc in the .kina file.
// The tile emitter sets the position once per tile-IR op at its dispatch
// (Emitter::op) with a Scope; this listener on the shared OpBuilder stamps
// each inserted op, so the op lowerings (which build with an UnknownLoc
// they copied at construction) stay untouched. Without a source file
// nothing is attached and the builder behaves as before.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Source.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"

#include <optional>

namespace kina::codegen::detail {

class SpanLocations : public mlir::OpBuilder::Listener {
public:
  SpanLocations(mlir::MLIRContext &ctx, const SourceFile *source) : ctx_(ctx), source_(source) {}

  /// Installs this listener on `b` when there is a source file.
  void attach(mlir::OpBuilder &b) {
    if (source_)
      b.setListener(this);
  }

  /// The FileLineColLoc (1-based line, code-point column) of a span's start.
  mlir::Location at(Span span) const {
    LineCol lc = source_->charLineCol(span.begin);
    return mlir::FileLineColLoc::get(&ctx_, source_->path(), lc.line + 1, lc.column + 1);
  }

  /// While alive, inserted ops get `span`'s location; restores the previous
  /// one (the enclosing `for`/`if`) when it ends.
  class Scope {
  public:
    Scope(SpanLocations &s, Span span) : s_(s), previous_(s.current_) {
      if (s_.source_)
        s_.current_ = s_.at(span);
    }
    ~Scope() { s_.current_ = previous_; }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    SpanLocations &s_;
    std::optional<mlir::Location> previous_;
  };

  void notifyOperationInserted(mlir::Operation *op, mlir::OpBuilder::InsertPoint) override {
    if (current_ && mlir::isa<mlir::UnknownLoc>(op->getLoc()))
      op->setLoc(*current_);
  }

private:
  mlir::MLIRContext &ctx_;
  const SourceFile *source_;
  std::optional<mlir::Location> current_;
};

} // namespace kina::codegen::detail
