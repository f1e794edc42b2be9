; Scopes and definitions for nvim-treesitter's locals module.
(kernel_definition) @local.scope
(tile_function) @local.scope
(host_function) @local.scope
(block) @local.scope

(dim_params dim: (identifier) @local.definition.parameter)
(parameter name: (identifier) @local.definition.parameter)
(named_result name: (identifier) @local.definition.parameter)
(let_binding name: (identifier) @local.definition.var)
(shared_declaration name: (identifier) @local.definition.var)
(register_declaration name: (identifier) @local.definition.var)
(for_statement variable: (identifier) @local.definition.var)

(identifier) @local.reference
