//! The scenario file: header, parameters, catalogs, road network, entities, storyboard.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::model::*;
use crate::params::{Scope, Value};
use crate::xml::{self, Node};
use crate::Error;

/// Reading context: the scenario's directory, its catalogs.
pub struct Ctx {
    pub dir: PathBuf,
    /// catalog name → (entry name → entry element).
    pub catalogs: HashMap<String, HashMap<String, Node>>,
    /// Directories per catalog type, for error messages.
    pub catalog_dirs: Vec<(String, PathBuf)>,
    /// Nesting of trajectories and routes being read (a catalog entry that refers to itself
    /// through a trajectory position would never end).
    pub(crate) depth: std::cell::Cell<usize>,
}

/// Deepest nesting of trajectories and routes inside each other.
pub(crate) const MAX_DEPTH: usize = 16;

const CATALOG_TYPES: &[&str] = &[
    "VehicleCatalog",
    "ControllerCatalog",
    "PedestrianCatalog",
    "MiscObjectCatalog",
    "EnvironmentCatalog",
    "ManeuverCatalog",
    "TrajectoryCatalog",
    "RouteCatalog",
];

/// Reads a scenario file with parameter overrides (name → literal value).
pub fn read_scenario(path: &Path, overrides: &BTreeMap<String, String>) -> Result<Scenario, Error> {
    let root = xml::parse_file(path)?;
    read_root(&root, path, overrides)
}

pub(crate) fn check_root(root: &Node) -> Result<(), Error> {
    if root.name != "OpenSCENARIO" {
        return Err(root.err("the root element must be <OpenSCENARIO>"));
    }
    Ok(())
}

pub(crate) fn header(root: &Node) -> Result<String, Error> {
    let h = root.req("FileHeader")?;
    h.check(
        &["revMajor", "revMinor", "date", "description", "author"],
        &["License", "Properties"],
    )?;
    let major = h.attr("revMajor").unwrap_or("");
    let minor: u32 = h
        .attr("revMinor")
        .unwrap_or("")
        .trim()
        .parse()
        .unwrap_or(99);
    if major.trim() != "1" || minor > 3 {
        return Err(h.err(format!(
            "OpenSCENARIO {major}.{minor} is not supported (1.0 to 1.3 are)"
        )));
    }
    for c in &h.children {
        match c.name.as_str() {
            "License" => c.check(&["name", "resource", "spdxId"], &[])?,
            _ => {
                c.check(&[], &["Property"])?;
                for p in &c.children {
                    p.check(&["name", "value"], &[])?;
                }
            }
        }
    }
    Ok(h.attr("description").unwrap_or("").to_string())
}

const ROOT_ATTRS: &[&str] = &["xmlns:xsi", "xsi:noNamespaceSchemaLocation"];

fn read_root(
    root: &Node,
    path: &Path,
    overrides: &BTreeMap<String, String>,
) -> Result<Scenario, Error> {
    check_root(root)?;
    root.check(
        ROOT_ATTRS,
        &[
            "FileHeader",
            "ParameterDeclarations",
            "VariableDeclarations",
            "MonitorDeclarations",
            "CatalogLocations",
            "RoadNetwork",
            "Entities",
            "Storyboard",
            "ParameterValueDistribution",
            "Catalog",
        ],
    )?;
    if root.child("ParameterValueDistribution").is_some() {
        return Err(root.err("this is a variation file: import it as a variation"));
    }
    if root.child("Catalog").is_some() {
        return Err(root.err("this is a catalog file, not a scenario"));
    }
    let description = header(root)?;
    let mut scope = Scope::default();
    let mut used = Vec::new();
    scope.declare(root.child("ParameterDeclarations"), overrides, &mut used)?;
    if let Some(unknown) = overrides.keys().find(|k| !used.contains(k)) {
        return Err(Error::Param(format!(
            "{}: the scenario declares no parameter '{unknown}'",
            path.display()
        )));
    }
    let mut variables = BTreeMap::new();
    if let Some(v) = root.child("VariableDeclarations") {
        v.check(&[], &["VariableDeclaration"])?;
        for d in &v.children {
            d.check(&["name", "variableType", "value"], &[])?;
            let name = str_attr(d, &scope, "name")?;
            let ty = d.attr("variableType").unwrap_or("string");
            let val = crate::params::typed(ty, Value::Str(str_attr(d, &scope, "value")?))
                .map_err(|e| d.err(format!("variable '{name}': {e}")))?;
            variables.insert(name, val);
        }
    }
    if let Some(m) = root.child("MonitorDeclarations") {
        return Err(m.err("monitors are not supported"));
    }
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut ctx = Ctx {
        dir: dir.clone(),
        catalogs: HashMap::new(),
        catalog_dirs: Vec::new(),
        depth: std::cell::Cell::new(0),
    };
    if let Some(cl) = root.child("CatalogLocations") {
        cl.check(&[], CATALOG_TYPES)?;
        for c in &cl.children {
            c.check(&[], &["Directory"])?;
            let d = c.req("Directory")?;
            d.check(&["path"], &[])?;
            let p = dir.join(str_attr(d, &scope, "path")?);
            ctx.load_catalog_dir(&p, d)?;
            ctx.catalog_dirs.push((c.name.clone(), p));
        }
    }
    let road_network = match root.child("RoadNetwork") {
        Some(rn) => {
            rn.check(
                &[],
                &["LogicFile", "SceneGraphFile", "TrafficSignals", "UsedArea"],
            )?;
            for c in &rn.children {
                if c.name != "LogicFile" {
                    return Err(c.err("unsupported element inside <RoadNetwork>"));
                }
            }
            match rn.child("LogicFile") {
                Some(lf) => {
                    lf.check(&["filepath"], &[])?;
                    Some(dir.join(str_attr(lf, &scope, "filepath")?))
                }
                None => None,
            }
        }
        None => None,
    };
    let entities = match root.child("Entities") {
        Some(e) => ctx.entities(e, &scope)?,
        None => Vec::new(),
    };
    let sb = root.req("Storyboard")?;
    sb.check(&[], &["Init", "Story", "StopTrigger"])?;
    let init = match sb.child("Init") {
        Some(i) => ctx.init(i, &scope)?,
        None => Vec::new(),
    };
    let mut stories = Vec::new();
    for s in sb.children_named("Story") {
        stories.push(ctx.story(s, &scope)?);
    }
    let stop_trigger = match sb.child("StopTrigger") {
        Some(t) => Some(ctx.trigger(t, &scope)?),
        None => None,
    };
    Ok(Scenario {
        file: path.to_path_buf(),
        description,
        parameters: scope.values,
        variables,
        road_network,
        entities,
        init,
        stories,
        stop_trigger,
    })
}

// ---- attribute helpers ------------------------------------------------------------------

pub(crate) fn value(n: &Node, s: &Scope, a: &str) -> Result<Option<Value>, Error> {
    match n.attr(a) {
        None => Ok(None),
        Some(raw) => s
            .eval(raw)
            .map(Some)
            .map_err(|e| n.err(format!("attribute '{a}': {e}"))),
    }
}

pub(crate) fn str_attr(n: &Node, s: &Scope, a: &str) -> Result<String, Error> {
    value(n, s, a)?
        .map(|v| v.as_string())
        .ok_or_else(|| n.err(format!("missing attribute '{a}'")))
}

pub(crate) fn opt_num(n: &Node, s: &Scope, a: &str) -> Result<Option<f64>, Error> {
    match value(n, s, a)? {
        None => Ok(None),
        Some(v) => v.as_f64().map(Some).ok_or_else(|| {
            n.err(format!(
                "attribute '{a}': '{}' is not a number",
                v.as_string()
            ))
        }),
    }
}

pub(crate) fn num(n: &Node, s: &Scope, a: &str) -> Result<f64, Error> {
    opt_num(n, s, a)?.ok_or_else(|| n.err(format!("missing attribute '{a}'")))
}

pub(crate) fn int(n: &Node, s: &Scope, a: &str) -> Result<i32, Error> {
    let v = num(n, s, a)?;
    if v != v.trunc() || v.abs() > 1e9 {
        return Err(n.err(format!("attribute '{a}': {v} is not an integer")));
    }
    Ok(v as i32)
}

pub(crate) fn boolean(n: &Node, s: &Scope, a: &str, default: bool) -> Result<bool, Error> {
    match value(n, s, a)? {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(b),
        Some(v) => match v.as_string().as_str() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            o => Err(n.err(format!("attribute '{a}': '{o}' is not a boolean"))),
        },
    }
}

// ---- catalogs ---------------------------------------------------------------------------

impl Ctx {
    fn load_catalog_dir(&mut self, dir: &Path, at: &Node) -> Result<(), Error> {
        let rd = std::fs::read_dir(dir)
            .map_err(|e| at.err(format!("catalog directory {}: {e}", dir.display())))?;
        let mut files: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("xosc"))
            })
            .collect();
        files.sort();
        for f in files {
            let root = xml::parse_file(&f)?;
            check_root(&root)?;
            root.check(ROOT_ATTRS, &["FileHeader", "Catalog"])?;
            header(&root)?;
            let cat = root.req("Catalog")?;
            cat.check(
                &["name"],
                &[
                    "Vehicle",
                    "Controller",
                    "Pedestrian",
                    "MiscObject",
                    "Environment",
                    "Maneuver",
                    "Trajectory",
                    "Route",
                ],
            )?;
            let name = cat
                .attr("name")
                .ok_or_else(|| cat.err("missing attribute 'name'"))?;
            let entries = self.catalogs.entry(name.to_string()).or_default();
            for e in &cat.children {
                let en = e
                    .attr("name")
                    .ok_or_else(|| e.err("missing attribute 'name'"))?;
                entries.insert(en.to_string(), e.clone());
            }
        }
        Ok(())
    }

    /// Resolves a `<CatalogReference>`: the entry element and its parameter scope (the entry's
    /// declarations with the reference's assignments, evaluated in the caller's scope).
    pub fn catalog_entry(
        &self,
        r: &Node,
        scope: &Scope,
        kind: &[&str],
    ) -> Result<(Node, Scope), Error> {
        r.check(&["catalogName", "entryName"], &["ParameterAssignments"])?;
        let cat = str_attr(r, scope, "catalogName")?;
        let entry = str_attr(r, scope, "entryName")?;
        let entries = self.catalogs.get(&cat).ok_or_else(|| {
            r.err(format!(
                "no catalog named '{cat}' in the catalog locations ({})",
                self.catalog_dirs
                    .iter()
                    .map(|(k, p)| format!("{k}: {}", p.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        let node = entries
            .get(&entry)
            .ok_or_else(|| r.err(format!("catalog '{cat}' has no entry '{entry}'")))?;
        if !kind.contains(&node.name.as_str()) {
            return Err(r.err(format!(
                "catalog entry '{entry}' is a <{}>, expected {}",
                node.name,
                kind.join(" or ")
            )));
        }
        let mut assigned = BTreeMap::new();
        if let Some(pa) = r.child("ParameterAssignments") {
            pa.check(&[], &["ParameterAssignment"])?;
            for a in &pa.children {
                a.check(&["parameterRef", "value"], &[])?;
                let name = a
                    .attr("parameterRef")
                    .ok_or_else(|| a.err("missing attribute 'parameterRef'"))?;
                assigned.insert(name.to_string(), str_attr(a, scope, "value")?);
            }
        }
        let mut inner = Scope::default();
        let mut used = Vec::new();
        inner.declare(node.child("ParameterDeclarations"), &assigned, &mut used)?;
        if let Some(u) = assigned.keys().find(|k| !used.contains(k)) {
            return Err(r.err(format!(
                "catalog entry '{entry}' declares no parameter '{u}'"
            )));
        }
        Ok((node.clone(), inner))
    }

    // ---- entities -----------------------------------------------------------------------

    fn entities(&self, e: &Node, scope: &Scope) -> Result<Vec<Entity>, Error> {
        e.check(&[], &["ScenarioObject"])?;
        let mut out = Vec::new();
        for so in &e.children {
            so.check(
                &["name"],
                &[
                    "CatalogReference",
                    "Vehicle",
                    "Pedestrian",
                    "MiscObject",
                    "ObjectController",
                ],
            )?;
            let name = str_attr(so, scope, "name")?;
            let mut ent = None;
            for c in &so.children {
                match c.name.as_str() {
                    "CatalogReference" => {
                        let (node, inner) =
                            self.catalog_entry(c, scope, &["Vehicle", "Pedestrian", "MiscObject"])?;
                        let mut en = object(&node, &inner, &name)?;
                        en.entry = node.attr("name").map(str::to_string);
                        ent = Some(en);
                    }
                    "ObjectController" => {}
                    _ => ent = Some(object(c, scope, &name)?),
                }
            }
            let mut ent =
                ent.ok_or_else(|| so.err("an entity needs a vehicle, pedestrian or object"))?;
            for oc in so.children_named("ObjectController") {
                oc.check(&[], &["Controller", "CatalogReference"])?;
                let c = oc.only_child()?;
                let (node, inner) = if c.name == "CatalogReference" {
                    self.catalog_entry(c, scope, &["Controller"])?
                } else {
                    (c.clone(), scope.clone())
                };
                node.check(
                    &["name", "controllerType"],
                    &["ParameterDeclarations", "Properties"],
                )?;
                if let Some(p) = node.child("Properties") {
                    p.check(&[], &["Property"])?;
                    for pr in &p.children {
                        pr.check(&["name", "value"], &[])?;
                        ent.controller_properties.insert(
                            str_attr(pr, &inner, "name")?,
                            str_attr(pr, &inner, "value")?,
                        );
                    }
                }
            }
            out.push(ent);
        }
        Ok(out)
    }
}

fn object(n: &Node, s: &Scope, name: &str) -> Result<Entity, Error> {
    let (kind, cat_attr) = match n.name.as_str() {
        "Vehicle" => (EntityKind::Vehicle, "vehicleCategory"),
        "Pedestrian" => (EntityKind::Pedestrian, "pedestrianCategory"),
        _ => (EntityKind::MiscObject, "miscObjectCategory"),
    };
    n.check(
        &["name", cat_attr, "mass", "model", "model3d", "role"],
        &[
            "ParameterDeclarations",
            "BoundingBox",
            "Performance",
            "Axles",
            "Properties",
        ],
    )?;
    let bb = n.req("BoundingBox")?;
    bb.check(&[], &["Center", "Dimensions"])?;
    let c = bb.req("Center")?;
    c.check(&["x", "y", "z"], &[])?;
    let d = bb.req("Dimensions")?;
    d.check(&["length", "width", "height"], &[])?;
    let bounding_box = BoundingBox {
        center_x: num(c, s, "x")?,
        center_y: num(c, s, "y")?,
        center_z: num(c, s, "z")?,
        length: num(d, s, "length")?,
        width: num(d, s, "width")?,
        height: num(d, s, "height")?,
    };
    if let Some(p) = n.child("Performance") {
        p.check(
            &[
                "maxSpeed",
                "maxAcceleration",
                "maxDeceleration",
                "maxAccelerationRate",
                "maxDecelerationRate",
            ],
            &[],
        )?;
    }
    let (mut front, mut rear) = (None, None);
    if let Some(ax) = n.child("Axles") {
        ax.check(&[], &["FrontAxle", "RearAxle", "AdditionalAxle"])?;
        for a in &ax.children {
            a.check(
                &[
                    "maxSteering",
                    "wheelDiameter",
                    "trackWidth",
                    "positionX",
                    "positionZ",
                ],
                &[],
            )?;
            let x = num(a, s, "positionX")?;
            match a.name.as_str() {
                "FrontAxle" => front = Some(x),
                "RearAxle" => rear = Some(x),
                _ => {}
            }
        }
    }
    let mut controller_properties = BTreeMap::new();
    if let Some(p) = n.child("Properties") {
        p.check(&[], &["Property"])?;
        for pr in &p.children {
            pr.check(&["name", "value"], &[])?;
            controller_properties.insert(str_attr(pr, s, "name")?, str_attr(pr, s, "value")?);
        }
    }
    Ok(Entity {
        name: name.to_string(),
        entry: None,
        kind,
        category: n
            .attr(cat_attr)
            .map(|_| str_attr(n, s, cat_attr))
            .transpose()?
            .unwrap_or_default(),
        bounding_box,
        front_axle_x: front,
        rear_axle_x: rear,
        controller_properties,
    })
}
