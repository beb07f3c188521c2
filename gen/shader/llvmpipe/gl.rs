//! The only code of the llvmpipe engine that calls C: a headless desktop GL 4.5 core context
//! on Mesa's llvmpipe through EGL, and the two draws the engine needs (a transform-feedback
//! draw of points for vertex shaders, a full-viewport triangle into float/integer colour
//! attachments for fragment shaders).
//!
//! * **Binding.** `khronos-egl` loads `libEGL.so.1` at run time (its `dynamic` feature, so a
//!   machine without libEGL builds and runs everything else, and the engine reports the
//!   missing library as an error); `glow` gets every GL entry point through
//!   `eglGetProcAddress`. Both are well kept, have no build script that needs headers, and
//!   keep the FFI surface to typed calls. A C harness would have needed the EGL/GL headers and
//!   a compiler at run time for no gain.
//! * **Device.** The context is created on the EGL *device* platform
//!   (`EGL_EXT_platform_device`) for the device that advertises `EGL_MESA_device_software`:
//!   Mesa's software rasteriser, whatever GPUs the machine has, without changing the
//!   process's environment (setting `LIBGL_ALWAYS_SOFTWARE` from a threaded test harness would
//!   race). `GL_RENDERER` must then name llvmpipe (a `GALLIUM_DRIVER=softpipe` in the user's
//!   environment would select softpipe: an error, not a silent change of reference).
//! * **Soundness.** Every `unsafe` block below carries its argument. The shared facts:
//!   (a) a [`Gl`] is created on one thread, makes its context current there and is not `Send`
//!   (a raw-pointer marker), so every GL call runs with its own context current;
//!   (b) glow's calls are plain GL calls whose pointer arguments glow derives from Rust slices
//!   with their lengths, and the sizes GL writes through them (`glReadPixels`,
//!   `glGetBufferSubData`) are computed here from the same dimensions the objects were created
//!   with; (c) the GL objects named in a call were created by this context and live until it
//!   is destroyed in `Drop`.

use glow::HasContext;
use khronos_egl as egl;
use std::ffi::{c_char, c_void, CStr};
use std::marker::PhantomData;

/// `EGL_PLATFORM_DEVICE_EXT`.
const PLATFORM_DEVICE: egl::Enum = 0x313F;
/// `EGL_EXTENSIONS` as a device string name.
const EXTENSIONS: egl::Int = 0x3055;

type QueryDevices =
    unsafe extern "system" fn(egl::Int, *mut *mut c_void, *mut egl::Int) -> egl::Boolean;
type QueryDeviceString = unsafe extern "system" fn(*mut c_void, egl::Int) -> *const c_char;

/// A desktop GL 4.5 core context on llvmpipe, current on the thread that made it.
pub struct Gl {
    gl: glow::Context,
    egl: egl::DynamicInstance<egl::EGL1_5>,
    display: egl::Display,
    context: egl::Context,
    /// `GL_RENDERER`, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub renderer: String,
    /// `GL_VERSION`.
    pub version: String,
    /// Not `Send`: the context is current on this thread only.
    _thread: PhantomData<*const ()>,
}

/// A vertex attribute: location, components per vertex, kind (integer kinds go through
/// `glVertexAttribIPointer` with the shader's signedness, so the bits arrive unchanged) and
/// the words of every vertex.
pub struct Attribute {
    /// `layout(location = …)`.
    pub location: u32,
    /// 1..=4.
    pub components: usize,
    /// The shader's base type of the attribute.
    pub kind: Kind,
    /// `components` words per vertex.
    pub words: Vec<u32>,
}

/// A vertex draw: the program's source, its attributes, the vertex count and the varyings
/// transform feedback captures (`captured` words per vertex in all).
pub struct VertexDraw<'a> {
    /// The rewritten vertex shader.
    pub source: &'a str,
    /// Attributes, each with a word list for every vertex.
    pub attributes: &'a [Attribute],
    /// Vertices (invocations).
    pub vertices: usize,
    /// Names of the captured varyings, in capture order.
    pub feedback: &'a [&'a str],
    /// Words captured per vertex.
    pub captured: usize,
}

/// What a colour attachment holds (its texture is the RGBA32 format of that kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// RGBA32F.
    Float,
    /// RGBA32I.
    Int,
    /// RGBA32UI.
    Uint,
}

/// A fragment draw: the program's source, the input texture (RGBA32UI, `input_width` ×
/// `height` texels, bound to texture unit `input_unit`), the framebuffer size and the kind of
/// each colour location `0..outputs.len()` (`None`: no attachment).
pub struct FragmentDraw<'a> {
    /// The rewritten fragment shader.
    pub source: &'a str,
    /// Texture unit of the inputs texture.
    pub input_unit: u32,
    /// Texels per row of the inputs texture.
    pub input_width: usize,
    /// The inputs, four words per texel, row 0 first (GL's bottom row).
    pub input_texels: &'a [u32],
    /// Framebuffer width.
    pub width: usize,
    /// Framebuffer (and inputs texture) height.
    pub height: usize,
    /// Colour attachments by location.
    pub outputs: &'a [Option<Kind>],
}

fn egl_error(what: &str, e: egl::Error) -> String {
    format!("{what}: {e}")
}

impl Gl {
    /// Loads libEGL, finds Mesa's software device, creates a GL 4.5 core context on it and
    /// checks that the renderer is llvmpipe.
    pub fn new() -> Result<Gl, String> {
        // SAFETY: loads libEGL.so.1 (or libEGL.so) and resolves the EGL 1.5 entry points by
        // name; the system's libEGL implements that ABI (khronos-egl checks that every 1.5
        // symbol exists before returning an instance).
        let egl = unsafe { egl::DynamicInstance::<egl::EGL1_5>::load_required() }.map_err(|e| {
            format!(
                "cannot load libEGL 1.5 ({e}); install Debian's libegl1, libegl-mesa0, \
                 libgl1-mesa-dri and libopengl0 (scripts/install-deps.sh)"
            )
        })?;
        let device = software_device(&egl)?;
        // SAFETY: for EGL_PLATFORM_DEVICE_EXT the native display is an EGLDeviceEXT, and
        // `device` is one that eglQueryDevicesEXT returned; the attribute list ends with
        // EGL_NONE (checked by khronos-egl).
        let display =
            unsafe { egl.get_platform_display(PLATFORM_DEVICE, device, &[egl::ATTRIB_NONE]) }
                .map_err(|e| egl_error("eglGetPlatformDisplay(software device)", e))?;
        egl.initialize(display)
            .map_err(|e| egl_error("eglInitialize", e))?;
        egl.bind_api(egl::OPENGL_API)
            .map_err(|e| egl_error("eglBindAPI(EGL_OPENGL_API)", e))?;
        let display_ext = egl
            .query_string(Some(display), egl::EXTENSIONS)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let config = match egl
            .choose_first_config(display, &[egl::RENDERABLE_TYPE, egl::OPENGL_BIT, egl::NONE])
            .map_err(|e| egl_error("eglChooseConfig", e))?
        {
            Some(c) => c,
            None if display_ext.contains("EGL_KHR_no_config_context") => {
                // SAFETY: EGL_KHR_no_config_context, which the display advertises, defines
                // EGL_NO_CONFIG_KHR (a null EGLConfig) as a valid config argument of
                // eglCreateContext; the handle is used for nothing else.
                unsafe { egl::Config::from_ptr(std::ptr::null_mut()) }
            }
            None => {
                return Err("the software EGL device has no desktop-GL config and no \
                     EGL_KHR_no_config_context"
                    .into())
            }
        };
        let attribs = [
            egl::CONTEXT_MAJOR_VERSION,
            4,
            egl::CONTEXT_MINOR_VERSION,
            5,
            egl::CONTEXT_OPENGL_PROFILE_MASK,
            egl::CONTEXT_OPENGL_CORE_PROFILE_BIT,
            egl::NONE,
        ];
        let context = egl
            .create_context(display, config, None, &attribs)
            .map_err(|e| egl_error("eglCreateContext(OpenGL 4.5 core)", e))?;
        egl.make_current(display, None, None, Some(context))
            .map_err(|e| egl_error("eglMakeCurrent(surfaceless)", e))?;
        // SAFETY: the loader returns eglGetProcAddress's pointers (or null, which glow treats
        // as a missing entry point); the context they belong to is current on this thread.
        let gl = unsafe {
            glow::Context::from_loader_function(|name| {
                egl.get_proc_address(name)
                    .map_or(std::ptr::null(), |f| f as *const c_void)
            })
        };
        // SAFETY: (a) the context is current; glGetString of these names returns static
        // strings that glow copies.
        let (renderer, version) = unsafe {
            (
                gl.get_parameter_string(glow::RENDERER),
                gl.get_parameter_string(glow::VERSION),
            )
        };
        let me = Gl {
            gl,
            egl,
            display,
            context,
            renderer,
            version,
            _thread: PhantomData,
        };
        if !me.renderer.contains("llvmpipe") {
            return Err(format!(
                "the software GL renderer is `{}`, not llvmpipe (is GALLIUM_DRIVER set?)",
                me.renderer
            ));
        }
        Ok(me)
    }

    /// Compiles and links `stages` (GL shader type and source); `feedback` names the varyings
    /// captured interleaved by transform feedback. Errors carry GL's info log.
    fn program(&self, stages: &[(u32, &str)], feedback: &[&str]) -> Result<glow::Program, String> {
        let gl = &self.gl;
        // SAFETY: (a), (b), (c) of the module docs; shaders and the program are created here.
        unsafe {
            let program = gl.create_program()?;
            for &(ty, src) in stages {
                let s = gl.create_shader(ty)?;
                gl.shader_source(s, src);
                gl.compile_shader(s);
                if !gl.get_shader_compile_status(s) {
                    return Err(format!(
                        "GL rejected the shader:\n{}\n--- source given to GL ---\n{}",
                        gl.get_shader_info_log(s).trim_end(),
                        numbered(src)
                    ));
                }
                gl.attach_shader(program, s);
            }
            if !feedback.is_empty() {
                gl.transform_feedback_varyings(program, feedback, glow::INTERLEAVED_ATTRIBS);
            }
            gl.link_program(program);
            if !gl.get_program_link_status(program) {
                return Err(format!(
                    "GL could not link the program: {}",
                    gl.get_program_info_log(program).trim_end()
                ));
            }
            gl.use_program(Some(program));
            Ok(program)
        }
    }

    /// Binds one uniform buffer per `(binding, words)`.
    fn uniform_blocks(&self, blocks: &[(u32, Vec<u32>)]) -> Result<(), String> {
        let gl = &self.gl;
        for (binding, words) in blocks {
            // SAFETY: (a), (b), (c).
            unsafe {
                let b = gl.create_buffer()?;
                gl.bind_buffer(glow::UNIFORM_BUFFER, Some(b));
                gl.buffer_data_u8_slice(glow::UNIFORM_BUFFER, &bytes(words), glow::STATIC_DRAW);
                gl.bind_buffer_base(glow::UNIFORM_BUFFER, *binding, Some(b));
            }
        }
        Ok(())
    }

    /// The byte offset GL gives a uniform in its block (`None`: GL knows no such active
    /// uniform, or the name is ambiguous). GL names a member `name` (anonymous block) or
    /// `Block.name` (a block with an instance name), an array by its first element `name[0]`.
    fn uniform_offset(&self, program: glow::Program, name: &str) -> Option<u32> {
        let gl = &self.gl;
        let (dotted, first) = (format!(".{name}"), format!("{name}[0]"));
        let dotted_first = format!(".{first}");
        // SAFETY: (a), (b), (c).
        unsafe {
            let count = gl.get_active_uniforms(program);
            let found: Vec<u32> = (0..count)
                .filter(|&i| {
                    gl.get_active_uniform(program, i).is_some_and(|u| {
                        u.name == name
                            || u.name == first
                            || u.name.ends_with(&dotted)
                            || u.name.ends_with(&dotted_first)
                    })
                })
                .collect();
            let [index] = found[..] else {
                return None;
            };
            let off = gl.get_active_uniforms_parameter(program, &[index], glow::UNIFORM_OFFSET)[0];
            u32::try_from(off).ok()
        }
    }

    /// Runs a vertex shader once per vertex (points, rasteriser discarded) and returns the
    /// captured words, `captured` per vertex, interleaved in `feedback` order. `uniforms`:
    /// `(name, byte offset)` pairs whose offsets GL must agree with.
    pub fn run_vertex(
        &self,
        draw: &VertexDraw,
        blocks: &[(u32, Vec<u32>)],
        uniforms: &[(String, u32)],
    ) -> Result<Vec<u32>, String> {
        let VertexDraw {
            source,
            attributes,
            vertices,
            feedback,
            captured,
        } = *draw;
        let program = self.program(&[(glow::VERTEX_SHADER, source)], feedback)?;
        self.check_layout(program, uniforms)?;
        self.uniform_blocks(blocks)?;
        let gl = &self.gl;
        let mut out = vec![0u8; vertices * captured * 4];
        // SAFETY: (a), (b), (c); each attribute buffer holds `vertices · components` words,
        // the attribute pointers read exactly that; the feedback buffer holds
        // `vertices · captured` words, the size read back.
        unsafe {
            let vao = gl.create_vertex_array()?;
            gl.bind_vertex_array(Some(vao));
            for a in attributes {
                let b = gl.create_buffer()?;
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(b));
                gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes(&a.words), glow::STATIC_DRAW);
                let n = a.components as i32;
                match a.kind {
                    Kind::Float => {
                        gl.vertex_attrib_pointer_f32(a.location, n, glow::FLOAT, false, 0, 0)
                    }
                    Kind::Int => gl.vertex_attrib_pointer_i32(a.location, n, glow::INT, 0, 0),
                    Kind::Uint => {
                        gl.vertex_attrib_pointer_i32(a.location, n, glow::UNSIGNED_INT, 0, 0)
                    }
                }
                gl.enable_vertex_attrib_array(a.location);
            }
            let tf = gl.create_buffer()?;
            gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, Some(tf));
            gl.buffer_data_size(
                glow::TRANSFORM_FEEDBACK_BUFFER,
                out.len().max(4) as i32,
                glow::STREAM_READ,
            );
            gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, 0, Some(tf));
            // A surfaceless context has no default framebuffer, and a draw needs a complete
            // one even with the rasteriser discarded: one 1×1 colour attachment.
            let fb = gl.create_framebuffer()?;
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fb));
            let t = gl.create_texture()?;
            gl.bind_texture(glow::TEXTURE_2D, Some(t));
            gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::RGBA8, 1, 1);
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                Some(t),
                0,
            );
            gl.enable(glow::RASTERIZER_DISCARD);
            gl.begin_transform_feedback(glow::POINTS);
            gl.draw_arrays(glow::POINTS, 0, vertices as i32);
            gl.end_transform_feedback();
            gl.disable(glow::RASTERIZER_DISCARD);
            gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, Some(tf));
            gl.get_buffer_sub_data(glow::TRANSFORM_FEEDBACK_BUFFER, 0, &mut out);
        }
        self.check_error("the vertex draw")?;
        Ok(words(&out))
    }

    /// Runs a fragment shader over a `width` × `height` framebuffer (one triangle covering
    /// it) and returns, per colour location, its RGBA words (row 0 first).
    pub fn run_fragment(
        &self,
        draw: &FragmentDraw,
        blocks: &[(u32, Vec<u32>)],
        uniforms: &[(String, u32)],
    ) -> Result<Vec<Option<Vec<u32>>>, String> {
        const COVER: &str = "#version 450 core\n\
            void main() {\n\
                gl_Position = vec4(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0, 0.0, 1.0);\n\
            }\n";
        let program = self.program(
            &[
                (glow::VERTEX_SHADER, COVER),
                (glow::FRAGMENT_SHADER, draw.source),
            ],
            &[],
        )?;
        self.check_layout(program, uniforms)?;
        self.uniform_blocks(blocks)?;
        if draw.input_texels.len() != draw.input_width * draw.height * 4 {
            return Err(format!(
                "internal: {} input words for {} × {} texels",
                draw.input_texels.len(),
                draw.input_width,
                draw.height
            ));
        }
        let (w, h) = (draw.width as i32, draw.height as i32);
        let gl = &self.gl;
        let mut out = Vec::new();
        // SAFETY: (a), (b), (c); the inputs texture is `input_width × height` RGBA32UI texels
        // and `input_texels` holds exactly that many words (checked above); each attachment is
        // `w × h` RGBA32 and each read-back buffer `w · h · 16` bytes.
        unsafe {
            let vao = gl.create_vertex_array()?;
            gl.bind_vertex_array(Some(vao));
            let input = gl.create_texture()?;
            gl.active_texture(glow::TEXTURE0 + draw.input_unit);
            gl.bind_texture(glow::TEXTURE_2D, Some(input));
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MIN_FILTER,
                glow::NEAREST as i32,
            );
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MAG_FILTER,
                glow::NEAREST as i32,
            );
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                glow::RGBA32UI as i32,
                draw.input_width as i32,
                h,
                0,
                glow::RGBA_INTEGER,
                glow::UNSIGNED_INT,
                glow::PixelUnpackData::Slice(Some(&bytes(draw.input_texels))),
            );
            // Unit 0 for the attachments, so the inputs stay bound to their unit.
            gl.active_texture(glow::TEXTURE0);
            let fb = gl.create_framebuffer()?;
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fb));
            let mut buffers = Vec::new();
            for (loc, kind) in draw.outputs.iter().enumerate() {
                let Some(kind) = kind else {
                    buffers.push(glow::NONE);
                    continue;
                };
                let t = gl.create_texture()?;
                gl.bind_texture(glow::TEXTURE_2D, Some(t));
                let format = match kind {
                    Kind::Float => glow::RGBA32F,
                    Kind::Int => glow::RGBA32I,
                    Kind::Uint => glow::RGBA32UI,
                };
                gl.tex_storage_2d(glow::TEXTURE_2D, 1, format, w, h);
                let at = glow::COLOR_ATTACHMENT0 + loc as u32;
                gl.framebuffer_texture_2d(glow::FRAMEBUFFER, at, glow::TEXTURE_2D, Some(t), 0);
                buffers.push(at);
            }
            gl.draw_buffers(&buffers);
            let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
            if status != glow::FRAMEBUFFER_COMPLETE {
                return Err(format!(
                    "the output framebuffer is incomplete (status {status:#x})"
                ));
            }
            for (i, kind) in draw.outputs.iter().enumerate() {
                match kind {
                    Some(Kind::Float) => {
                        gl.clear_buffer_f32_slice(glow::COLOR, i as u32, &[0.0; 4])
                    }
                    Some(Kind::Int) => gl.clear_buffer_i32_slice(glow::COLOR, i as u32, &[0; 4]),
                    Some(Kind::Uint) => gl.clear_buffer_u32_slice(glow::COLOR, i as u32, &[0; 4]),
                    None => {}
                }
            }
            gl.viewport(0, 0, w, h);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            for (loc, kind) in draw.outputs.iter().enumerate() {
                let Some(kind) = kind else {
                    out.push(None);
                    continue;
                };
                let (format, ty) = match kind {
                    Kind::Float => (glow::RGBA, glow::FLOAT),
                    Kind::Int => (glow::RGBA_INTEGER, glow::INT),
                    Kind::Uint => (glow::RGBA_INTEGER, glow::UNSIGNED_INT),
                };
                let mut px = vec![0u8; draw.width * draw.height * 16];
                gl.read_buffer(glow::COLOR_ATTACHMENT0 + loc as u32);
                gl.read_pixels(
                    0,
                    0,
                    w,
                    h,
                    format,
                    ty,
                    glow::PixelPackData::Slice(Some(&mut px)),
                );
                out.push(Some(words(&px)));
            }
        }
        self.check_error("the fragment draw")?;
        Ok(out)
    }

    /// Checks that GL placed each named uniform at the byte offset the compiler's layout has.
    fn check_layout(
        &self,
        program: glow::Program,
        uniforms: &[(String, u32)],
    ) -> Result<(), String> {
        for (name, want) in uniforms {
            if let Some(got) = self.uniform_offset(program, name) {
                if got != *want {
                    return Err(format!(
                        "uniform `{name}`: GL's std140 offset is {got}, the compiler's {want}"
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_error(&self, what: &str) -> Result<(), String> {
        // SAFETY: (a).
        let e = unsafe { self.gl.get_error() };
        if e == glow::NO_ERROR {
            Ok(())
        } else {
            Err(format!("GL error {e:#x} in {what}"))
        }
    }
}

impl Drop for Gl {
    fn drop(&mut self) {
        // The display is shared by every context of the process: it is not terminated.
        let _ = self.egl.make_current(self.display, None, None, None);
        let _ = self.egl.destroy_context(self.display, self.context);
        let _ = self.egl.release_thread();
    }
}

/// The EGL device that is Mesa's software rasteriser.
fn software_device(egl: &egl::DynamicInstance<egl::EGL1_5>) -> Result<*mut c_void, String> {
    let client = egl
        .query_string(None, egl::EXTENSIONS)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !client.contains("EGL_EXT_device_enumeration") || !client.contains("EGL_EXT_platform_device")
    {
        return Err(format!(
            "libEGL lacks EGL_EXT_device_enumeration/EGL_EXT_platform_device (client extensions: \
             {client}); the llvmpipe engine needs Mesa's libEGL (Debian's libegl-mesa0)"
        ));
    }
    let (Some(qd), Some(qs)) = (
        egl.get_proc_address("eglQueryDevicesEXT"),
        egl.get_proc_address("eglQueryDeviceStringEXT"),
    ) else {
        return Err("libEGL does not resolve eglQueryDevicesEXT/eglQueryDeviceStringEXT".into());
    };
    // SAFETY: both names are advertised by the client extensions checked above, and these are
    // their prototypes in EGL_EXT_device_query / EGL_EXT_device_enumeration
    // (`EGLBoolean eglQueryDevicesEXT(EGLint, EGLDeviceEXT *, EGLint *)`,
    // `const char *eglQueryDeviceStringEXT(EGLDeviceEXT, EGLint)`), with the "system" ABI of
    // EGLAPIENTRY.
    let (query_devices, query_string) = unsafe {
        (
            std::mem::transmute::<extern "system" fn(), QueryDevices>(qd),
            std::mem::transmute::<extern "system" fn(), QueryDeviceString>(qs),
        )
    };
    let mut devices = [std::ptr::null_mut::<c_void>(); 16];
    let mut n: egl::Int = 0;
    // SAFETY: `devices` has room for the 16 handles the call may write, `n` is a valid EGLint.
    if unsafe { query_devices(devices.len() as egl::Int, devices.as_mut_ptr(), &mut n) } == 0 {
        return Err("eglQueryDevicesEXT failed".into());
    }
    for &d in &devices[..n.clamp(0, devices.len() as i32) as usize] {
        // SAFETY: `d` is a device handle eglQueryDevicesEXT returned; EGL_EXTENSIONS is a valid
        // name for it.
        let ext = unsafe { query_string(d, EXTENSIONS) };
        if ext.is_null() {
            continue;
        }
        // SAFETY: a non-null result of eglQueryDeviceStringEXT is a NUL-terminated string owned
        // by EGL for the device's lifetime (the process's); it is copied at once.
        let ext = unsafe { CStr::from_ptr(ext) }.to_string_lossy();
        if ext.contains("EGL_MESA_device_software") {
            return Ok(d);
        }
    }
    Err(format!(
        "none of the {n} EGL devices is Mesa's software device (EGL_MESA_device_software); \
         install Debian's libegl-mesa0 and libgl1-mesa-dri"
    ))
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn numbered(src: &str) -> String {
    src.lines()
        .enumerate()
        .map(|(i, l)| format!("{:4} {l}\n", i + 1))
        .collect()
}
