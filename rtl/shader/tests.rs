use super::*;

#[test]
fn elaborates_with_defaults_and_quads() {
    for cfg in [
        ShaderCfg::default(),
        ShaderCfg {
            quads: 2,
            warps: 3,
            regs: 40,
            ..ShaderCfg::default()
        },
    ] {
        let d = shader_core_top(&cfg).unwrap_or_else(|e| panic!("{e}"));
        let top = d.top();
        assert!(top.outputs.iter().any(|p| p.name == "export_data_3"));
        assert!(top.inputs.iter().any(|p| p.name == "tex_resp_texels_15"));
    }
}

#[test]
fn rejects_bad_parameters_by_name() {
    let bad = [
        (
            ShaderCfg {
                quads: 0,
                ..ShaderCfg::default()
            },
            "quads",
        ),
        (
            ShaderCfg {
                quads: 17,
                ..ShaderCfg::default()
            },
            "quads",
        ),
        (
            ShaderCfg {
                warps: 0,
                ..ShaderCfg::default()
            },
            "warps",
        ),
        (
            ShaderCfg {
                regs: 300,
                ..ShaderCfg::default()
            },
            "regs",
        ),
        (
            ShaderCfg {
                imem_depth: 100,
                ..ShaderCfg::default()
            },
            "imem_depth",
        ),
        (
            ShaderCfg {
                watchdog: 0,
                ..ShaderCfg::default()
            },
            "watchdog",
        ),
    ];
    for (cfg, name) in bad {
        let e = shader_core_top(&cfg).unwrap_err();
        assert!(e.only_params(), "{e}");
        assert!(
            e.to_string().contains(&format!("parameter `{name}`")),
            "{e}"
        );
    }
}
