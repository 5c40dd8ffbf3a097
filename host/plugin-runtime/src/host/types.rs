//! `ldp:plugin/types`: types only, nothing for the host to answer.

use crate::sandbox::HostState;

impl crate::bindings::wit::Host for HostState {}
