; `impl Trait for Type` and supertraits `trait A: B + C`.
(impl_item trait: (_) type: (_)) @inherit.impl
(trait_item bounds: (trait_bounds)) @inherit.supertraits
