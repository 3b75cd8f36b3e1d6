//! The planning capability of a desktop whose whole state can be copied: a
//! planner forks it, tries steps on the copies and keeps what works. The
//! simulated desktop has it ([`crate::env::sim`] implements [`Replica`]); a real
//! desktop is one machine and has not, so a stage that asks
//! [`crate::env::Desktops::replica`] and gets None takes its observation-only path.
//!
//! The trait answers questions about the desktop's windows that an observation
//! does not (which window belongs to which application, which control goes back
//! to an application's first screen), so a stage plans over a replica without
//! knowing which backend it is. A replica also shows its whole state in the
//! model the application specs are written against ([`DesktopState`], the
//! [`Live`] layout of its controls): the offline explorer and actor search
//! that state (they work on any replica, get one from
//! [`crate::env::Desktops::replica`], and never name a backend).

use std::collections::{BTreeMap, BTreeSet};

use crate::model::Action;
use crate::resources::{KindSpec, Resource};

use super::sim::{DesktopState, Live};
use super::spec::LoadedApp;
use super::{ControlInfo, EnvError, Environment, StepOutcome};

/// A desktop a planner can copy and query beyond its observation.
pub trait Replica: Environment + Send + Sync {
    /// An independent copy of this desktop in its current state.
    fn fork(&self) -> Box<dyn Replica>;

    /// Does `action` name a control on the screen now (by label or text)? Unlike
    /// [`Environment::target_of`], a keystroke or wheel without a named control
    /// names none.
    fn resolves(&self, action: &Action) -> bool;

    /// The applications as their spec files describe them (screens, controls,
    /// effects), in the order [`Environment::applications`] names them.
    fn specs(&self) -> &[LoadedApp];

    /// The spec of the application `app`.
    fn spec(&self, app: &str) -> Option<&LoadedApp> {
        self.specs().iter().find(|a| a.spec.name == app)
    }

    /// The resources that hold on the fresh desktop.
    fn initial_resources(&self) -> BTreeSet<Resource>;

    /// The applications of the open windows, in the order they were opened.
    fn open_windows(&self) -> Vec<String>;

    /// The position of `app`'s window among [`Replica::open_windows`] (None:
    /// not open).
    fn window_of(&self, app: &str) -> Option<usize> {
        self.open_windows().iter().position(|w| w == app)
    }

    /// The position of the window in front (None: the desktop is in front).
    fn active_window(&self) -> Option<usize>;

    /// Opens (or brings to the front) `app`'s window as its launcher would,
    /// without an input event.
    ///
    /// # Errors
    /// An application the desktop does not have.
    fn launch(&mut self, app: &str) -> Result<(), EnvError>;

    /// The text of the taskbar button that shows the desktop ("Start").
    fn show_desktop_text(&self) -> Option<String>;

    /// Is `control` (of the current observation) part of the desktop's frame
    /// rather than of an application's content: the button that shows the
    /// desktop, a window's minimise or close button, or text that does nothing?
    fn is_chrome(&self, control: &ControlInfo) -> bool;

    /// The text of a control on the current screen of `app`'s window, when it is
    /// in front and not on its first screen, whose click only goes back towards
    /// that first screen.
    fn home_control(&self, app: &str) -> Option<String>;

    /// The whole current state (files, windows, collections, settings, events).
    fn state(&self) -> &DesktopState;

    /// Replaces the whole state (a snapshot taken with [`Replica::state`] and
    /// changed: a planner's start with some resources made to hold).
    fn restore(&mut self, state: DesktopState);

    /// The controls of the current state with what each one does.
    fn live(&self) -> &Live;

    /// The resource kinds of the catalogue, as the replica tests them.
    fn kinds(&self) -> &BTreeMap<String, KindSpec>;

    /// Every resource that holds now.
    fn current_resources(&self) -> BTreeSet<Resource>;

    /// Performs `action` (a replica cannot fail to act: an action it cannot
    /// do is an outcome that is not ok).
    fn act(&mut self, action: &Action) -> StepOutcome;

    /// Performs `action` without building the observation; whether it was valid.
    fn act_quiet(&mut self, action: &Action) -> bool;
}

impl Clone for Box<dyn Replica> {
    fn clone(&self) -> Self {
        self.fork()
    }
}
