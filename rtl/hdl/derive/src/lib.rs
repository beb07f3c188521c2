//! Derives for `rendergen-hdl` records. Use them through `rendergen_hdl` (which re-exports them);
//! the traits they implement and their rules are documented there (`rendergen_hdl::record`).
//!
//! * `#[derive(Bundle)]` on `struct X<T = Sig> { … }`: a payload record generic over its leaf.
//!   A field's type is `T`, `[F; N]`, `Vec<F>`, `Option<F>` or another bundle `Y<T>` (with `F`
//!   again any of these). Implements `Leaves<T>` for every `T` (so `X<u32>` is the shape,
//!   `X<u64>` simulator values), and `Bundle` and `Io` for `X<Sig>`.
//! * `#[derive(Io)]` on a plain struct whose fields are `Io` (signals, bundles, streams, and
//!   `Vec`/arrays/`Option` of them): an interface that crosses a module boundary. Generates the
//!   shape struct `XShape`.
//! * `#[derive(HwEnum)]` on a fieldless enum: a hardware enumeration (states), printed as
//!   `localparam`s.
//! * `#[name_lets]` on a function, an `impl` block or an inline module: every `let` binding in
//!   it (closures included) names the signals it binds after its variable, so the Verilog and
//!   the waveforms say `carry` where they would say `add17`.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{
    parse_macro_input, Data, DeriveInput, Fields, GenericArgument, Ident, PathArguments, Type,
};

fn hdl() -> Tokens {
    quote!(::rendergen_hdl)
}

fn error(span: Span, msg: &str) -> TokenStream {
    syn::Error::new(span, msg).to_compile_error().into()
}

fn named_fields(input: &DeriveInput, derive: &str) -> Result<Vec<(Ident, Type)>, TokenStream> {
    let Data::Struct(s) = &input.data else {
        return Err(error(
            input.ident.span(),
            &format!("derive({derive}) needs a struct"),
        ));
    };
    let Fields::Named(named) = &s.fields else {
        return Err(error(
            input.ident.span(),
            &format!("derive({derive}) needs a struct with named fields"),
        ));
    };
    Ok(named
        .named
        .iter()
        .map(|f| (f.ident.clone().expect("named"), f.ty.clone()))
        .collect())
}

/// The shape of a field type, as far as the derive needs to see it.
enum Kind {
    Leaf,
    Array(Box<Kind>),
    Vec(Box<Kind>),
    Option(Box<Kind>),
    Nested,
}

fn single_arg(args: &PathArguments) -> Option<&Type> {
    let PathArguments::AngleBracketed(a) = args else {
        return None;
    };
    if a.args.len() != 1 {
        return None;
    }
    match a.args.first() {
        Some(GenericArgument::Type(t)) => Some(t),
        _ => None,
    }
}

fn classify(ty: &Type, leaf: &Ident) -> Kind {
    match ty {
        Type::Array(a) => Kind::Array(Box::new(classify(&a.elem, leaf))),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last().expect("a path has a segment");
            if p.path.segments.len() == 1 && last.ident == *leaf && last.arguments.is_none() {
                return Kind::Leaf;
            }
            let wrap = |f: fn(Box<Kind>) -> Kind| {
                single_arg(&last.arguments).map(|inner| f(Box::new(classify(inner, leaf))))
            };
            match last.ident.to_string().as_str() {
                "Vec" => wrap(Kind::Vec).unwrap_or(Kind::Nested),
                "Option" => wrap(Kind::Option).unwrap_or(Kind::Nested),
                _ => Kind::Nested,
            }
        }
        Type::Paren(p) => classify(&p.elem, leaf),
        _ => Kind::Nested,
    }
}

/// Code visiting every leaf of `expr` (a reference to a value of kind `k`).
fn each(k: &Kind, expr: Tokens, h: &Tokens) -> Tokens {
    match k {
        Kind::Leaf => quote!(f(path, #expr);),
        Kind::Nested => quote!(#h::record::Leaves::each_leaf(#expr, path, f);),
        Kind::Array(inner) | Kind::Vec(inner) => {
            let body = each(inner, quote!(x), h);
            quote!(for (i, x) in (#expr).iter().enumerate() { path.push_index(i); #body path.pop(); })
        }
        Kind::Option(inner) => {
            let body = each(inner, quote!(x), h);
            quote!(if let Some(x) = (#expr).as_ref() { #body })
        }
    }
}

/// An expression mapping `expr` (a reference to a value of kind `k`) leaf by leaf.
fn map(k: &Kind, expr: Tokens, h: &Tokens) -> Tokens {
    match k {
        Kind::Leaf => quote!(f(path, #expr)),
        Kind::Nested => quote!(#h::record::Leaves::map_leaves(#expr, path, f)),
        Kind::Array(inner) => {
            let body = map(inner, quote!(&(#expr)[i]), h);
            quote!({
                let mut i = 0usize;
                ::core::array::from_fn(|_| {
                    path.push_index(i);
                    let v = #body;
                    path.pop();
                    i += 1;
                    v
                })
            })
        }
        Kind::Vec(inner) => {
            let body = map(inner, quote!(x), h);
            quote!({
                let mut out = ::std::vec::Vec::with_capacity((#expr).len());
                for (i, x) in (#expr).iter().enumerate() {
                    path.push_index(i);
                    out.push(#body);
                    path.pop();
                }
                out
            })
        }
        Kind::Option(inner) => {
            let body = map(inner, quote!(x), h);
            quote!(match (#expr).as_ref() { Some(x) => Some(#body), None => None })
        }
    }
}

/// `#[derive(Bundle)]`: see the crate documentation.
#[proc_macro_derive(Bundle)]
pub fn derive_bundle(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let fields = match named_fields(&input, "Bundle") {
        Ok(f) => f,
        Err(e) => return e,
    };
    let params: Vec<_> = input.generics.params.iter().collect();
    let leaf = match params.as_slice() {
        [syn::GenericParam::Type(t)] if input.generics.where_clause.is_none() => t.ident.clone(),
        _ => {
            return error(
                input.ident.span(),
                "derive(Bundle) needs exactly one type parameter, the leaf: `struct X<T = Sig> { a: T, … }`",
            )
        }
    };
    let h = hdl();
    let name = &input.ident;
    let leaf_u = format_ident!("__U");
    let mut eaches = Vec::new();
    let mut maps = Vec::new();
    for (f, ty) in &fields {
        let k = classify(ty, &leaf);
        let fname = f.to_string();
        let e = each(&k, quote!(&self.#f), &h);
        eaches.push(quote!(path.push(#fname); #e path.pop();));
        let m = map(&k, quote!(&self.#f), &h);
        maps.push(quote!(#f: { path.push(#fname); let v = #m; path.pop(); v }));
    }
    quote! {
        impl<#leaf> #h::record::Leaves<#leaf> for #name<#leaf> {
            type Of<#leaf_u> = #name<#leaf_u>;
            fn each_leaf(
                &self,
                path: &mut #h::record::PortPath,
                f: &mut dyn FnMut(&#h::record::PortPath, &#leaf),
            ) {
                #(#eaches)*
            }
            fn map_leaves<#leaf_u>(
                &self,
                path: &mut #h::record::PortPath,
                f: &mut dyn FnMut(&#h::record::PortPath, &#leaf) -> #leaf_u,
            ) -> #name<#leaf_u> {
                #name { #(#maps),* }
            }
        }
        #h::__bundle_impls!(#name);
    }
    .into()
}

/// `#[derive(Io)]`: see the crate documentation.
#[proc_macro_derive(Io)]
pub fn derive_io(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let fields = match named_fields(&input, "Io") {
        Ok(f) => f,
        Err(e) => return e,
    };
    if !input.generics.params.is_empty() {
        return error(
            input.ident.span(),
            "derive(Io) needs a struct without generic parameters",
        );
    }
    let h = hdl();
    let name = &input.ident;
    let vis = &input.vis;
    let shape = format_ident!("{}Shape", name);
    let doc = format!("The shape of [`{name}`] (derived): each field's `Io::Shape`.");
    let names: Vec<&Ident> = fields.iter().map(|(f, _)| f).collect();
    let strs: Vec<String> = names.iter().map(|f| f.to_string()).collect();
    let tys: Vec<&Type> = fields.iter().map(|(_, t)| t).collect();
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq)]
        #vis struct #shape {
            #(#[allow(missing_docs)] pub #names: <#tys as #h::record::Io>::Shape,)*
        }
        impl #h::record::Io for #name {
            type Shape = #shape;
            const NAMES_ITS_PORTS: bool = true;
            fn io_shape(&self) -> #shape {
                #shape { #(#names: #h::record::Io::io_shape(&self.#names),)* }
            }
            fn make(
                shape: &#shape,
                path: &mut #h::record::PortPath,
                b: &mut dyn #h::record::Boundary,
            ) -> Self {
                #name {
                    #(#names: {
                        path.push(#strs);
                        let v = <#tys as #h::record::Io>::make(&shape.#names, path, b);
                        path.pop();
                        v
                    },)*
                }
            }
            fn take(self, path: &mut #h::record::PortPath, b: &mut dyn #h::record::Boundary) {
                #(
                    path.push(#strs);
                    #h::record::Io::take(self.#names, path, b);
                    path.pop();
                )*
            }
        }
    }
    .into()
}

/// `#[derive(HwEnum)]`: see the crate documentation.
#[proc_macro_derive(HwEnum)]
pub fn derive_hw_enum(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let Data::Enum(e) = &input.data else {
        return error(input.ident.span(), "derive(HwEnum) needs an enum");
    };
    if e.variants.is_empty() {
        return error(
            input.ident.span(),
            "derive(HwEnum) needs at least one variant",
        );
    }
    if let Some(v) = e
        .variants
        .iter()
        .find(|v| !matches!(v.fields, Fields::Unit))
    {
        return error(
            v.ident.span(),
            "derive(HwEnum) needs variants without fields",
        );
    }
    let h = hdl();
    let name = &input.ident;
    let idents: Vec<&Ident> = e.variants.iter().map(|v| &v.ident).collect();
    let strs: Vec<String> = idents.iter().map(|v| v.to_string()).collect();
    let idx: Vec<u32> = (0..idents.len() as u32).collect();
    let name_str = name.to_string();
    quote! {
        impl #h::record::HwEnum for #name {
            const NAME: &'static str = #name_str;
            const VARIANTS: &'static [&'static str] = &[#(#strs),*];
            fn index(self) -> u32 {
                match self { #(#name::#idents => #idx,)* }
            }
        }
    }
    .into()
}

/// Names the signals bound by every `let` in the item after their variables (see the crate
/// documentation). Applies to a `fn`, an `impl` block (every method) or an inline `mod`.
#[proc_macro_attribute]
pub fn name_lets(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let span = proc_macro2::TokenStream::from(attr)
            .into_iter()
            .next()
            .map_or(Span::call_site(), |t| t.span());
        return error(span, "#[name_lets] takes no arguments");
    }
    let mut item = parse_macro_input!(item as syn::Item);
    match &item {
        syn::Item::Fn(_) | syn::Item::Impl(_) | syn::Item::Mod(_) => {}
        other => {
            return error(
                syn::spanned::Spanned::span(other),
                "#[name_lets] applies to a fn, an impl block or an inline mod",
            )
        }
    }
    syn::visit_mut::VisitMut::visit_item_mut(&mut NameLets, &mut item);
    quote!(#item).into()
}

/// Inserts the naming statement after each `let`.
struct NameLets;

/// Every variable bound by a pattern (`x`, `(a, b)`, `[p, q]`, `x: T`), skipping `_`-prefixed
/// and `mut` ones (an accumulator's value at the `let` is not what it stands for, and its type
/// is often not known there yet).
fn bound_idents(pat: &syn::Pat, out: &mut Vec<Ident>) {
    match pat {
        syn::Pat::Ident(p)
            if p.subpat.is_none()
                && p.mutability.is_none()
                && !p.ident.to_string().starts_with('_') =>
        {
            out.push(p.ident.clone())
        }
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| bound_idents(p, out)),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|p| bound_idents(p, out)),
        syn::Pat::Type(t) => bound_idents(&t.pat, out),
        syn::Pat::Paren(p) => bound_idents(&p.pat, out),
        _ => {}
    }
}

/// The variable of a `let` binding one plain (not `mut`, not `_`) name, and its type if given.
fn single_ident(pat: &syn::Pat) -> Option<(Ident, Option<Type>)> {
    let mut names = Vec::new();
    match pat {
        syn::Pat::Ident(_) => bound_idents(pat, &mut names),
        syn::Pat::Type(t) if matches!(*t.pat, syn::Pat::Ident(_)) => {
            bound_idents(&t.pat, &mut names);
            return names.pop().map(|i| (i, Some((*t.ty).clone())));
        }
        _ => {}
    }
    names.pop().map(|i| (i, None))
}

/// `"x"` for the variable `x` (raw identifiers without `r#`).
fn name_text(ident: &Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").unwrap_or(&text).to_string()
}

impl syn::visit_mut::VisitMut for NameLets {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, block);
        let hdl = hdl();
        let name_it = |value: &Tokens, text: &str| -> Tokens {
            quote! {
                {
                    #[allow(unused_imports)]
                    use #hdl::naming::soft::{Named as _, Unnamed as _};
                    (&#value).__rendergen_soft_name(#text);
                }
            }
        };
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            let mut after = Vec::new();
            if let syn::Stmt::Local(local) = &mut stmt {
                // `let x = &temporary();` relies on the temporary living as long as `x`, which
                // wrapping would end: references are left alone (they are seldom signals).
                let plain = matches!(&local.init, Some(init)
                    if init.diverge.is_none() && !matches!(*init.expr, syn::Expr::Reference(_)));
                if let (true, Some((ident, ty))) = (plain, single_ident(&local.pat)) {
                    // `let x = e;` → `let x = { let v = e; name(&v, "x"); v };`: the value is
                    // named without mentioning `x`, so rustc still reports `x` if unused.
                    let init = local.init.as_mut().expect("checked above");
                    let expr = &init.expr;
                    let value = quote!(__rendergen_value);
                    let ty = ty.map(|t| quote!(: #t));
                    let named = name_it(&value, &name_text(&ident));
                    *init.expr = syn::parse_quote! {
                        {
                            let #value #ty = #expr;
                            #named
                            #value
                        }
                    };
                } else if plain {
                    // Destructuring: name each variable after the binding.
                    let mut names = Vec::new();
                    bound_idents(&local.pat, &mut names);
                    for ident in names {
                        after.push(name_it(&quote!(#ident), &name_text(&ident)));
                    }
                }
            }
            stmts.push(stmt);
            for tokens in after {
                stmts.push(syn::parse_quote!(#tokens));
            }
        }
        block.stmts = stmts;
    }
}
